import * as TE from 'fp-ts/lib/TaskEither.js'
import { chainUnavailable } from '../../model/failures.js'
import type { SigningLock } from '../../ports/signing-key.js'
import type { BatchItem, TransferSubmitter } from '../ports/transfer-submitter.js'

/**
 * The submitter whose signing steps refuse while the replica's lock for its key is not held (docs/ARCHITECTURE.md
 * §5.5): a settle or pass under way signs nothing more.
 */
export const lockGuarded = (lock: SigningLock, submitter: TransferSubmitter): TransferSubmitter => {
  const refused = () => TE.left(chainUnavailable(lock.settleRefusal() ?? 'replica lock not held'))
  return {
    ...submitter,
    prepare: (authorization, signature, executionGas, contractPayer) =>
      lock.lockHeld ? submitter.prepare(authorization, signature, executionGas, contractPayer) : refused(),
    ...(submitter.prepareBatch === undefined
      ? {}
      : {
          prepareBatch: (items: ReadonlyArray<BatchItem>) =>
            lock.lockHeld && submitter.prepareBatch ? submitter.prepareBatch(items) : refused(),
        }),
    prepareReplacement: (previous) => (lock.lockHeld ? submitter.prepareReplacement(previous) : refused()),
    fillNonceGaps: (recorded) => (lock.lockHeld ? submitter.fillNonceGaps(recorded) : refused()),
  }
}
