import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { keyRefused, type ChainUnavailable } from '../../model/failures.js'
import type { EvmAddress as Address } from '../model/evm-hex.js'
import type { KeyReads, Settler } from '../ports/settler.js'
import type { BatchItem, PreparedTransfer, TransferSubmitter } from '../ports/transfer-submitter.js'
import type { KeyEvents } from '../../ports/signing-key.js'
import type { KeyFunds } from './key-funds.js'

/** A node's refusal that is about the key, not the transaction: it cannot pay for gas. */
const KEY_REFUSAL = /insufficient funds|gas \* price|balance too low|not enough (funds|balance)/i
/** How long a key the settler refused sends its payments alone before `isSettler` is asked again. */
const SETTLER_RECHECK_MS = 60_000

export interface KeyGuardEvents extends KeyEvents {
  /** The settler no longer lets the key settle (a batch reverted whole, and `isSettler` says no): its payments go alone. */
  readonly notSettler: () => void
}

/**
 * The key's side of its lane (docs/ARCHITECTURE.md §5.8): before a signed transaction leaves, the key's balance must
 * cover its gas limit × max fee, else it is given back unsent and the key refused; a node's refusal for want of funds
 * refuses the key too; a batch that reverts whole from a key the settler no longer allows stops the key's batching.
 */
export const guardKey = (
  inner: TransferSubmitter,
  account: Address,
  funds: KeyFunds,
  reads: KeyReads,
  settler: Settler | undefined,
  events: KeyGuardEvents,
  now = () => performance.now(),
): TransferSubmitter => {
  const batches = new Set<string>()
  let refusedBySettlerAt: number | undefined

  const paid =
    (prepare: TE.TaskEither<ChainUnavailable, PreparedTransfer>): TE.TaskEither<ChainUnavailable, PreparedTransfer> =>
    async () => {
      const prepared = await prepare()
      if (E.isLeft(prepared)) return prepared
      const transfer = prepared.right
      // The gas limit it was signed with, as the submitter tells it (else read from its bytes).
      const cost = (transfer.gasLimit ?? reads.signedGasLimit(transfer.raw) ?? 0n) * transfer.maxFeePerGas
      const { ok, balance } = await funds.covers(cost)
      if (ok) return prepared
      batches.delete(transfer.txHash)
      await inner.discard(transfer)()
      const reason = `the signing key ${account} holds ${balance} wei, less than its next transaction's gas limit × max fee (${cost} wei): nothing was sent`
      events.refused(reason)
      return E.left(keyRefused(reason))
    }

  const recheckSettler = () => {
    if (settler === undefined || refusedBySettlerAt === undefined || now() - refusedBySettlerAt < SETTLER_RECHECK_MS)
      return
    refusedBySettlerAt = now()
    void reads.settlerAllows(settler.address, account).then(
      (allowed) => allowed && (refusedBySettlerAt = undefined),
      () => undefined,
    )
  }

  return {
    ...inner,
    prepare: (authorization, signature, executionGas, contractPayer) =>
      paid(inner.prepare(authorization, signature, executionGas, contractPayer)),
    ...(inner.prepareBatch === undefined
      ? {}
      : {
          prepareBatch: (items: ReadonlyArray<BatchItem>) =>
            paid(async () => {
              const prepared = await inner.prepareBatch!(items)()
              if (E.isRight(prepared)) batches.add(prepared.right.txHash)
              return prepared
            }),
        }),
    ...(inner.batchFits === undefined
      ? {}
      : {
          batchFits: (items: ReadonlyArray<BatchItem>) => {
            recheckSettler()
            return refusedBySettlerAt === undefined ? inner.batchFits!(items) : 1
          },
        }),
    send: (prepared, waitMs) => async () => {
      const batch = batches.delete(prepared.txHash)
      const sent = await inner.send(prepared, waitMs)()
      if (E.isLeft(sent)) {
        if (sent.left._tag === 'SendRejected' && KEY_REFUSAL.test(sent.left.reason)) {
          events.refused(`the node refused ${account}'s transaction: ${sent.left.reason}`)
          return E.left({ ...sent.left, keyRefused: true as const })
        }
        return sent
      }
      events.accepted()
      if (batch && settler !== undefined && sent.right._tag === 'Mined' && !sent.right.receipt.succeeded) {
        const allowed = await reads.settlerAllows(settler.address, account).catch(() => true)
        if (!allowed) {
          refusedBySettlerAt = now()
          events.notSettler()
        }
      }
      return sent
    },
  }
}
