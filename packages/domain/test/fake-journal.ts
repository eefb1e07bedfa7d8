import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  journalUnavailable,
  type Attempt,
  type ClaimRef,
  type Hex,
  type NewSettlement,
  type Settlement,
  type SettlementJournal,
  type TransferReceipt,
} from '@x402-facilitator/domain'

const NOW = new Date('2026-11-22T12:00:00Z')

/** An in-memory journal with the guarded transitions of the port, and a switch to take it down. */
export class FakeJournal implements SettlementJournal {
  readonly rows = new Map<string, Settlement>()
  down = false
  /** Goes down right after this many successful calls (undefined: never). */
  failAfterCalls: number | undefined
  private calls = 0
  private nextId = 1

  private available<A>(run: () => A): TE.TaskEither<ReturnType<typeof journalUnavailable>, A> {
    if (this.failAfterCalls !== undefined && this.calls >= this.failAfterCalls) this.down = true
    this.calls++
    return this.down ? TE.left(journalUnavailable('connection refused')) : TE.right(run())
  }

  private keyOf = (s: { network: string; asset: string; payer: string; nonce: string }) => `${s.network}|${s.asset}|${s.payer}|${s.nonce}`

  private transition(ref: ClaimRef, from: ReadonlyArray<Settlement['state']>, change: (row: Settlement) => Settlement | undefined) {
    return this.available(() => {
      const row = [...this.rows.values()].find((r) => r.id === ref.id)
      if (!row || row.generation !== ref.generation || !from.includes(row.state)) return 'stale' as const
      const next = change(row)
      if (!next) return 'stale' as const
      this.rows.set(this.keyOf(row), { ...next, updatedAt: NOW })
      return 'applied' as const
    })
  }

  readonly claim = (s: NewSettlement) =>
    this.available(() => {
      const existing = this.rows.get(this.keyOf(s))
      if (existing && existing.state !== 'released') return { _tag: 'Conflict' as const, existing }
      const settlement: Settlement = {
        ...s,
        id: existing?.id ?? String(this.nextId++),
        generation: (existing?.generation ?? 0) + 1,
        state: 'claimed',
        attempts: [],
        createdAt: NOW,
        updatedAt: NOW,
      }
      this.rows.set(this.keyOf(s), settlement)
      return { _tag: 'Claimed' as const, settlement }
    })
  readonly markSubmitted = (ref: ClaimRef, attempt: Attempt) =>
    this.transition(ref, ['claimed'], (row) => ({ ...row, state: 'submitted', attempts: [attempt], txHash: attempt.txHash }))
  readonly addAttempt = (ref: ClaimRef, attempt: Attempt) =>
    this.transition(ref, ['submitted'], (row) => ({ ...row, attempts: [...row.attempts, attempt], txHash: attempt.txHash }))
  readonly markMined = (ref: ClaimRef, receipt: TransferReceipt) =>
    this.transition(ref, ['submitted'], (row) =>
      row.attempts.some((a) => a.txHash === receipt.txHash)
        ? { ...row, state: receipt.succeeded ? 'confirmed' : 'reverted', txHash: receipt.txHash, blockNumber: receipt.blockNumber }
        : undefined,
    )
  readonly markReleased = (ref: ClaimRef, from: 'claimed' | 'submitted', reason: string) =>
    this.transition(ref, [from], (row) => ({ ...row, state: 'released', error: reason }))
  readonly markSettledElsewhere = (ref: ClaimRef, note: string) =>
    this.transition(ref, ['submitted'], (row) => ({ ...row, state: 'confirmed', error: note }))
  readonly markReorged = (ref: ClaimRef) => this.transition(ref, ['confirmed'], (row) => ({ ...row, state: 'submitted' }))
  readonly findUnfinished = () => this.available(() => [...this.rows.values()].filter((r) => r.state === 'claimed' || r.state === 'submitted'))
  readonly findByKey = (key: { network: string; asset: string; payer: string; nonce: string }) =>
    this.available(() => O.fromNullable(this.rows.get(this.keyOf(key))))
  readonly findByTxHash = (txHash: Hex) =>
    this.available(() => O.fromNullable([...this.rows.values()].find((r) => r.attempts.some((a) => a.txHash === txHash))))
  readonly findByIdempotencyKey = (key: string) =>
    this.available(() => O.fromNullable([...this.rows.values()].find((r) => r.idempotencyKey === key)))
}

