import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  chainUnavailable,
  type AuthorizationEnd,
  type LanePorts,
  type MinedTransaction,
  type OpenedLane,
  type RecoveryReport,
  type RowOutcome,
  type Settlement,
  type SigningKey,
  type SigningLock,
  type Submission,
  type SubmissionResult,
} from '@x402-facilitator/domain'
import type { Ledger } from './ledger.js'
import { ledgerPayment, type LedgerItem, type LedgerRequest } from './ledger-payment.js'

/** `crashAfterSend`: the process dies once its transfer is on the ledger, before it records the receipt. */
export interface LedgerKeyOptions {
  readonly crashAfterSend?: boolean
}

let transactions = 0

/**
 * A ledger account as a signing key: its lane records each attempt (no account nonce, no fees: the EVM's), then sends
 * it (one transfer, no batches), and recovers its rows from the ledger.
 */
export const ledgerKey = (
  account: string,
  ledger: Ledger,
  options: LedgerKeyOptions = {},
): SigningKey<LedgerRequest> => ({
  account,
  open: ({ ports, lock }): OpenedLane<LedgerRequest> => {
    const submit = async ({ ref, item }: Submission): Promise<SubmissionResult> => {
      if (!lock.lockHeld) return E.left(chainUnavailable(lock.settleRefusal() ?? 'lock lost'))
      const { voucher } = item as LedgerItem
      const txId = `ledgertx:${++transactions}`
      const attempt = {
        txHash: txId,
        raw: JSON.stringify({ ...voucher, value: String(voucher.value) }),
        sentAt: ports.clock.now(),
      }
      const recorded = await ports.journal.markSubmitted(ref, attempt)()
      if (E.isLeft(recorded)) return recorded
      const mined = ledger.send(txId, voucher)
      if (options.crashAfterSend) return new Promise<never>(() => undefined)
      if (E.isLeft(mined)) return E.right({ _tag: 'Pending', txHash: txId })
      return E.right({ _tag: 'Mined', receipt: mined.right, batched: false, sentAt: ports.clock.now().getTime() })
    }
    const recover = recoverFromLedger(account, ledger, ports, lock)
    return {
      mechanism: {
        paymentOf: (request) => ledgerPayment(ports.policy, ledger, request),
        submissions: { submit },
        recover: ({ startUp }) => recover(startUp ? 0 : ports.recovery.minAgeMs),
        finish: () => TE.map((report: RecoveryReport) => ({ ...report, stillSubmitted: [] }))(recover(0)),
        replaceStalled: () => TE.right('stale'),
        ends: {
          usedBy: (row) => TE.right(O.fromNullable(minedOf(ledger, row))),
          endedBy: (row) =>
            TE.right(
              O.map((mined: MinedTransaction): AuthorizationEnd => ({ ...mined, how: 'used' }))(
                O.fromNullable(minedOf(ledger, row)),
              ),
            ),
        },
        retrial: () => T.of({ wouldSucceed: false, payerHasCode: false }),
        judgeReleased: () => T.of(undefined),
      },
      fees: { canPay: true, refresh: async () => undefined },
      receipts: { receiptOf: (hashes) => TE.right(O.fromNullable(ledger.receiptOf(hashes))) },
    }
  },
})

const minedOf = (ledger: Ledger, row: Settlement): MinedTransaction | undefined => {
  const txId = ledger.spentIn(row.nonce)
  const receipt = txId === undefined ? undefined : ledger.receiptOf([txId])
  return receipt === undefined ? undefined : { txHash: receipt.txHash, blockNumber: receipt.blockNumber }
}

/** Every unfinished row of this account: mined on the ledger → confirmed; never sent, or lost → released. */
const recoverFromLedger =
  (account: string, ledger: Ledger, ports: LanePorts, lock: SigningLock) =>
  (minAgeMs: number): TE.TaskEither<never, RecoveryReport> =>
  async () => {
    const before = new Date(ports.clock.now().getTime() - minAgeMs)
    const rows = await ports.journal.findUnfinished(before, ports.recovery.batchSize)()
    const outcomes: Partial<Record<RowOutcome, number>> = {}
    const mine = E.isRight(rows) ? rows.right.filter((row) => row.owner === account && lock.lockHeld) : []
    for (const row of mine) {
      const ref = { id: row.id, generation: row.generation }
      const from = row.state === 'claimed' ? 'claimed' : 'submitted'
      const receipt = ledger.receiptOf(row.attempts.map((a) => a.txHash))
      const outcome: RowOutcome =
        receipt !== undefined && row.state === 'submitted'
          ? (await ports.journal.markMined(ref, receipt)(), 'mined')
          : (await ports.journal.markReleased(ref, from, 'not on the ledger')(), 'released-abandoned-claim')
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
    }
    return E.right({ examined: mine.length, outcomes })
  }
