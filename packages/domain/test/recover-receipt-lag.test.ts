import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  recoverSettlements,
  settlePayment,
  type Hex,
  type PreparedTransfer,
  type RecoveryDeps,
} from '@x402-facilitator/domain'
import { NOW, makeDeps, testClock, validRequest, nextAnswerId, testRecoveryPolicy, withEvm } from './fakes.js'

const LATER = new Date(NOW.getTime() + 60_000)
const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, 'c')}`

/**
 * A node whose state shows a transaction mined before it serves the block, its receipt and its logs (anvil commits a
 * block's state, releases it to readers, then stores the block and receipts; a load-balanced URL does the like): the
 * account's mined nonce has passed the batch's, the token says its authorizations are used, while no receipt of ours
 * and no `AuthorizationUsed` log is served yet — the node still holds our transaction (its pool, or the block stored
 * since). That is our batch mined, not "another transaction, beyond the blocks searched".
 */
describe('recovery while the node serves state before receipts (a mined batch not yet receipted)', () => {
  it('leaves the rows submitted (never cancelled), then confirms them at the receipt', async () => {
    const d = makeDeps({ maxItems: 10 })
    d.token.state = { balance: 1_000_000_000n, authorizationUsed: false }
    d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        settlePayment(validRequest({ nonce: nonce(n) }), { requirementsRecord: {}, answerId: nextAnswerId() })(
          withEvm(d.deps),
        )(),
      ),
    )
    const rows = () => [...d.journal.rows.values()]
    const batch = rows().find((r) => r.attempts[0]?.batchIndex !== undefined)!.attempts[0]!
    const ofBatch = () => rows().filter((r) => r.attempts[0]!.txHash === batch.txHash)
    expect(ofBatch().length).to.be.greaterThan(1)
    const deps: RecoveryDeps = {
      ...d.deps,
      clock: { ...testClock, now: () => LATER },
      liveness: { isAlive: () => TE.right(false) },
      recovery: testRecoveryPolicy,
    }

    // The window: state says mined and used; no receipt, no log yet; the node holds the transaction.
    d.submitter.minedCount = batch.accountNonce! + 1n
    d.submitter.pooled.add(batch.txHash)
    d.token.state = { ...d.token.state, authorizationUsed: true }
    d.token.usedBy = undefined
    await recoverSettlements(deps)()
    expect(ofBatch().map((r) => [r.state, r.error])).to.deep.equal(ofBatch().map(() => ['submitted', undefined]))

    // The block is stored: the receipt is served, and the next pass confirms every row at it.
    d.submitter.mined.set(batch.txHash, d.submitter.receiptOfBatch(batch as PreparedTransfer)!)
    await recoverSettlements(deps)()
    expect(ofBatch().map((r) => [r.state, r.txHash])).to.deep.equal(ofBatch().map(() => ['confirmed', batch.txHash]))
  })
})
