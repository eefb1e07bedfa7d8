import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure } from '../model/failures.js'
import type { FacilitatorPolicy, TxHash } from '../model/payment.js'
import type { ChainBlocks } from '../ports/chain-blocks.js'
import type { RecordedBlock, Settlement } from '../ports/settlement-row.js'
import type { FinalityJournal } from '../ports/journal/finality-journal.js'
import type { TransferReceipt } from '../ports/transaction-receipt.js'
import { receiptForRow } from './row-receipt.js'
import type { PaymentEnds, TransactionReceipts } from '../ports/payment-ends.js'
import { claimRefOf } from '../ports/settlement-row.js'

export interface FinalityPolicy {
  /** A row is final once `head − its block ≥ confirmations` (`CONFIRMATIONS`). */
  readonly confirmations: number
  /** Final rows are still checked until their block is this deep: a deeper reorg is a finality violation. */
  readonly violationWatchDepth: number
  /** Blocks checked at one head, at most (one JSON-RPC batch). */
  readonly maxBlocks: number
}

export interface FinalityDeps {
  readonly policy: FacilitatorPolicy
  readonly journal: FinalityJournal
  readonly submitter: TransactionReceipts
  /** Whether a transaction not ours (a row settled elsewhere) used the payment. */
  readonly ends: Pick<PaymentEnds, 'usedBy'>
  readonly blocks: ChainBlocks
  readonly finality: FinalityPolicy
}

/** What one row whose block was replaced came to. */
export type ReplacedRow =
  /**
   * Its transaction is on the new chain in another block: the row names that block, `confirmed` (also a row that was
   * `reverted`, `cancelled` or released after a whole batch reverted: the new chain mined it successfully).
   */
  | { readonly _tag: 'MinedAgain'; readonly row: Settlement; readonly blockNumber: bigint }
  /** Its transaction is not on the chain now: back to `submitted`, to be finished again. */
  | { readonly _tag: 'Reorged'; readonly row: Settlement }
  /** Another writer moved it first. */
  | { readonly _tag: 'Stale'; readonly row: Settlement }

export interface FinalityReport {
  readonly head: bigint
  /** Ids of the rows that became `final` at this head. */
  readonly final: ReadonlyArray<string>
  readonly replaced: ReadonlyArray<ReplacedRow>
}

/**
 * docs/ARCHITECTURE.md §5.6, at one new head: the blocks of this replica's `confirmed` rows (and of its recent
 * `final`, `reverted` and `cancelled` ones, and of its rows released after a whole batch reverted) are compared with
 * the chain's hashes at those heights, in one read. Same hash and deep enough: `final`. A different hash: each row of
 * that block is looked for on the new chain, mined again successfully (`markMinedAgain`) or sent back to `submitted`
 * (`markReorged`) for recovery to finish. A block above the head waits for a later one. The rows that ended without a
 * transfer are watched as long as a final row is, then no longer (`endWatch`).
 */
export const checkFinality =
  (head: bigint): RTE.ReaderTaskEither<FinalityDeps, InfrastructureFailure, FinalityReport> =>
  (deps) => {
    const me = deps.policy.facilitator
    const { confirmations, violationWatchDepth, maxBlocks } = deps.finality
    const finalFrom = head > BigInt(violationWatchDepth) ? head - BigInt(violationWatchDepth) : 0n

    /**
     * A receipt proves the transfer when it succeeded and is one of our attempts; another party's transaction (a row
     * settled elsewhere) must also be the one that used the authorization — it may succeed without it.
     */
    const provesTransfer = (
      row: Settlement,
      receipt: TransferReceipt,
    ): TE.TaskEither<InfrastructureFailure, boolean> => {
      if (!receipt.succeeded) return TE.right(false)
      if (row.attempts.some((a) => a.txHash === receipt.txHash)) return TE.right(true)
      return pipe(
        deps.ends.usedBy(row, row.createdAt, receipt.blockNumber),
        TE.map(O.exists((used) => used.txHash === receipt.txHash)),
      )
    }

    const followRow = (row: Settlement): TE.TaskEither<InfrastructureFailure, ReplacedRow> => {
      const hashes = [...new Set<TxHash>([...(row.txHash ? [row.txHash] : []), ...row.attempts.map((a) => a.txHash)])]
      return pipe(
        deps.submitter.receiptOf(hashes),
        TE.chainW(
          O.match(
            () =>
              pipe(
                deps.journal.markReorged(claimRefOf(row)),
                TE.map((t): ReplacedRow => (t === 'applied' ? { _tag: 'Reorged', row } : { _tag: 'Stale', row })),
              ),
            (mined) => {
              const receipt = receiptForRow(row.attempts, mined)
              return pipe(
                provesTransfer(row, receipt),
                TE.chainW((proven) =>
                  proven
                    ? pipe(
                        deps.journal.markMinedAgain(claimRefOf(row), receipt),
                        TE.map((t): ReplacedRow =>
                          t === 'applied'
                            ? { _tag: 'MinedAgain', row, blockNumber: receipt.blockNumber }
                            : { _tag: 'Stale', row },
                        ),
                      )
                    : // Reverted, or not shown to have used the authorization on the new chain: recovery decides.
                      pipe(
                        deps.journal.markReorged(claimRefOf(row)),
                        TE.map((t): ReplacedRow =>
                          t === 'applied' ? { _tag: 'Reorged', row } : { _tag: 'Stale', row },
                        ),
                      ),
                ),
              )
            },
          ),
        ),
      )
    }

    const followBlock = (block: RecordedBlock) =>
      pipe(
        deps.journal.findInBlock(me, block),
        TE.chainW((rows) => TE.sequenceSeqArray(rows.map(followRow))),
      )

    return pipe(
      deps.journal.blocksToWatch(me, finalFrom, maxBlocks),
      TE.chainW((blocks) => {
        if (blocks.length === 0)
          return TE.right<InfrastructureFailure, FinalityReport>({ head, final: [], replaced: [] })
        // A block above the head is not judged yet: the new chain of a reorg may still be shorter, or the node behind.
        const reached = blocks.filter((b) => b.blockNumber <= head)
        const heights = [...new Set(reached.map((b) => b.blockNumber))]
        return pipe(
          heights.length === 0 ? TE.right(new Map<bigint, TxHash>()) : deps.blocks.hashesAt(heights),
          TE.chainW((onChain) => {
            const kept = reached.filter((b) => b.blockHash !== undefined && onChain.get(b.blockNumber) === b.blockHash)
            // A height the node did not answer for (it does not have it after all) waits for the next head too.
            // Only a recorded hash can be found replaced: a row without one is never sent back on no evidence.
            const replaced = reached.filter(
              (b) => b.blockHash !== undefined && !kept.includes(b) && onChain.has(b.blockNumber),
            )
            const deep = kept.filter((b) => head - b.blockNumber >= BigInt(confirmations))
            return pipe(
              deps.journal.markFinal(me, deep),
              TE.chainFirstW(() => deps.journal.endWatch(me, finalFrom)),
              TE.chainW((final) =>
                pipe(
                  TE.sequenceSeqArray(replaced.map(followBlock)),
                  TE.map((rows): FinalityReport => ({ head, final, replaced: rows.flat() })),
                ),
              ),
            )
          }),
        )
      }),
    )
  }
