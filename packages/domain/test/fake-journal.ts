import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  journalUnavailable,
  type Address,
  type Attempt,
  type ClaimRef,
  type TxHash,
  type JournalUnavailable,
  type MarkMined,
  type MinedAndMarked,
  type MinedTransaction,
  type NewSettlement,
  type OwnerRows,
  type Permit2Transfer,
  type RecordedBlock,
  type Settlement,
  type SettledElsewhereTransition,
  type SettlementJournal,
  type SettlementKey,
  type SettlementState,
  type Transition,
  type TransferReceipt,
  type UnfinishedCursor,
} from '@x402-facilitator/domain'

const NOW = new Date('2026-11-22T12:00:00Z')

// Hex addresses and hashes are kept lower-case, as the Postgres journal stores (and decodes) them; another family's
// spellings (base58, base64) are case-sensitive and kept as given.
const lower = <T extends string>(value: T): T => (/^0x/i.test(value) ? (value.toLowerCase() as T) : value)
const keyOf = (key: SettlementKey): string =>
  `${key.network}|${lower(key.asset)}|${lower(key.payer)}|${lower(key.nonce)}`

/** The row as `tx_hash = null, block_number = null, gas_used = null, error = null` leaves it: those fields absent. */
const withoutOutcome = ({
  txHash: _tx,
  blockNumber: _block,
  blockHash: _hash,
  gasUsed: _gas,
  error: _error,
  paymentLogIndex: _log,
  ...row
}: Settlement) => row
const blockOf = (mined: { readonly blockNumber: bigint; readonly blockHash?: TxHash }) =>
  mined.blockHash === undefined
    ? { blockNumber: mined.blockNumber }
    : { blockNumber: mined.blockNumber, blockHash: lower(mined.blockHash) }
/** Ended without a transfer, its block still watched for a reorg that may re-mine it (docs/ARCHITECTURE.md §5.6). */
const watchedEnd = (row: Settlement): boolean =>
  (row.state === 'reverted' || row.state === 'cancelled' || row.state === 'released') &&
  row.blockHash !== undefined &&
  row.watchEndedAt === undefined
/** Released with none of its transactions seen mined, not judged yet (docs/ARCHITECTURE.md §5.5). */
const releasedToJudge = (row: Settlement): boolean =>
  row.state === 'released' && row.blockHash === undefined && row.watchEndedAt === undefined
const sameBlock = (row: Settlement, block: RecordedBlock): boolean =>
  row.blockNumber === block.blockNumber &&
  row.blockHash === (block.blockHash === undefined ? undefined : lower(block.blockHash))

/** Released, recording the settler batch that reverted whole when given (its block is then watched). */
const released = (row: Settlement, reason: string, mined?: MinedTransaction): Settlement => ({
  ...row,
  state: 'released',
  error: reason,
  ...(mined === undefined ? {} : { txHash: lower(mined.txHash), ...blockOf(mined) }),
})

/** A Permit2 row's terms as the Postgres journal stores them: addresses and the permit's signature lower-case. */
const lowerTerms = (terms: Permit2Transfer): Permit2Transfer => ({
  ...terms,
  spender: lower(terms.spender),
  ...(terms.facilitator === undefined ? {} : { facilitator: lower(terms.facilitator) }),
  ...(terms.sponsoredPermit === undefined
    ? {}
    : { sponsoredPermit: { ...terms.sponsoredPermit, signature: lower(terms.sponsoredPermit.signature) } }),
})

/** As Postgres keeps it: hashes lower case, and only the fields given (another family's attempt has no nonce, no fees). */
const stored = (attempt: Attempt): Attempt => ({
  ...attempt,
  txHash: lower(attempt.txHash),
  raw: lower(attempt.raw),
})

/**
 * An in-memory journal that answers as the Postgres one does (both pass test/contract), with switches to take it
 * down. `now` stamps `createdAt`, `updatedAt` and the claim time [a fixed instant].
 */
export class FakeJournal implements SettlementJournal {
  readonly rows = new Map<string, Settlement>()
  down = false
  /** Calls whose work is done but whose answer is lost (a timeout after the commit), by method name, once each. */
  readonly loseAnswerOf = new Set<string>()
  /** Calls that fail without doing their work (Postgres refused them), by method name, until removed. */
  readonly failing = new Set<string>()
  /** No call answers in time and none does its work (Postgres hangs). */
  hangs = false
  /** Goes down right after this many successful calls (undefined: never). */
  failAfterCalls: number | undefined
  private calls = 0
  private nextId = 1
  /** When each row (by id) was last claimed: `findByIdempotencyKey` answers the newest claim. */
  private readonly claimedAt = new Map<string, Date>()
  /**
   * The attempts of earlier claims, by hash → row id: still found by `findByTxHash`, and other rows may not take
   * them.
   */
  private readonly earlierAttempts = new Map<TxHash, string>()
  /** The lone attempts (no settler batch's) of earlier claims, by hash → row id. */
  private readonly earlierLoneAttempts = new Map<TxHash, string>()

  constructor(private readonly now: () => Date = () => NOW) {}

  /** Runs `answer` when the task runs, as a real journal does, unless the journal is down. */
  private call<A>(answer: () => A, method = ''): TE.TaskEither<JournalUnavailable, A> {
    return async () => {
      if (this.failAfterCalls !== undefined && this.calls >= this.failAfterCalls) this.down = true
      this.calls++
      if (this.down || this.failing.has(method)) return E.left(journalUnavailable('connection refused', true))
      if (this.hangs) return E.left(journalUnavailable(`${method}: no answer from Postgres in time`))
      const value = answer()
      if (this.loseAnswerOf.delete(method))
        return E.left(journalUnavailable(`${method}: no answer from Postgres in time`))
      return E.right(value)
    }
  }

  private byId = (id: string): Settlement | undefined => [...this.rows.values()].find((row) => row.id === id)

  private ownerOfHash(txHash: TxHash): string | undefined {
    return (
      [...this.rows.values()].find((row) => row.attempts.some((a) => a.txHash === txHash))?.id ??
      this.earlierAttempts.get(txHash)
    )
  }

  /** A hash leads to one row: an attempt whose hash another row holds is not stored (`stale`). */
  private heldByAnotherRow = (row: Settlement, attempt: Attempt): boolean => {
    const holder = this.ownerOfHash(lower(attempt.txHash))
    return holder !== undefined && holder !== row.id
  }

  /** `change` answers the next row, `undefined` (stale), or `{ unchanged }`: applied with nothing written. */
  private transition(
    ref: ClaimRef,
    from: ReadonlyArray<SettlementState>,
    change: (row: Settlement) => Settlement | { readonly unchanged: Settlement } | undefined,
    method = '',
  ) {
    return this.call((): Transition => {
      const row = this.byId(ref.id)
      if (row === undefined || row.generation !== ref.generation || !from.includes(row.state)) return 'stale'
      const next = change(row)
      if (next === undefined) return 'stale'
      if (!('unchanged' in next)) this.rows.set(keyOf(row), { ...next, updatedAt: this.now() })
      return 'applied'
    }, method)
  }

  /** Each row's nonce space (docs/ARCHITECTURE.md §5, "Nonce spaces"), by id. */
  private readonly nonceSpaces = new Map<string, TxHash>()

  /**
   * What holds a claim's nonce: its own row (its nonce space's key, across tokens for Permit2), and a row that holds
   * what it needs whatever its state: the old key's row in another nonce space, or the holder of its sponsored permit.
   */
  private holdersOf(s: NewSettlement): { readonly own?: Settlement; readonly holder?: Settlement } {
    const space = lower(s.nonceSpace ?? s.asset)
    const rows = [...this.rows.values()]
    const own = rows.find(
      (row) =>
        row.network === s.network &&
        this.nonceSpaces.get(row.id) === space &&
        row.payer === lower(s.payer) &&
        row.nonce === lower(s.nonce),
    )
    const oldKey = this.rows.get(keyOf(s))
    const permit = s.permit2?.sponsoredPermit
    const holder =
      oldKey !== undefined && this.nonceSpaces.get(oldKey.id) !== space
        ? oldKey
        : rows.find(
            (row) =>
              permit !== undefined &&
              row.id !== own?.id &&
              row.network === s.network &&
              row.asset === lower(s.asset) &&
              row.payer === lower(s.payer) &&
              row.permit2?.sponsoredPermit?.nonce === permit.nonce &&
              row.state !== 'released' &&
              row.state !== 'waived',
          )
    return { ...(own === undefined ? {} : { own }), ...(holder === undefined ? {} : { holder }) }
  }

  /** A released Permit2 row is claimed again for the same charge, once judged, or when nothing of it was signed. */
  private releasedTakenBack(row: Settlement, s: NewSettlement): boolean {
    const signed =
      row.attempts.length > 0 ||
      [...this.earlierAttempts.values(), ...this.earlierLoneAttempts.values()].includes(row.id)
    return (s.waived !== true && s.value === row.value) || row.watchEndedAt !== undefined || !signed
  }

  readonly claim = (s: NewSettlement) =>
    this.call(() => {
      const { own: existing, holder } = this.holdersOf(s)
      if (existing !== undefined && existing.state !== 'released') return { _tag: 'Conflict' as const, existing }
      if (holder !== undefined) return { _tag: 'Conflict' as const, existing: holder }
      if (existing !== undefined && s.permit2 !== undefined && !this.releasedTakenBack(existing, s))
        return { _tag: 'Conflict' as const, existing }
      if (existing !== undefined) {
        for (const attempt of existing.attempts) {
          this.earlierAttempts.set(attempt.txHash, existing.id)
          if (attempt.batchIndex === undefined) this.earlierLoneAttempts.set(attempt.txHash, existing.id)
        }
        this.rows.delete(keyOf(existing))
      }
      const now = this.now()
      const settlement: Settlement = {
        id: existing?.id ?? String(this.nextId++),
        generation: (existing?.generation ?? 0) + 1,
        state: s.waived === true ? 'waived' : 'claimed',
        network: s.network,
        asset: lower(s.asset),
        payer: lower(s.payer),
        nonce: lower(s.nonce),
        payee: lower(s.payee),
        value: s.value,
        validAfter: s.validAfter,
        validBefore: s.validBefore,
        signature: lower(s.signature),
        owner: lower(s.owner),
        ...(s.permit2 === undefined ? {} : { permit2: lowerTerms(s.permit2) }),
        attempts: [],
        ...(s.idempotencyKey === undefined ? {} : { idempotencyKey: s.idempotencyKey }),
        ...(s.requestHash === undefined ? {} : { requestHash: s.requestHash }),
        ...(s.caller === undefined ? {} : { caller: s.caller }),
        // The row's one success answer outlives its claims.
        ...(existing?.successAnsweredBy === undefined ? {} : { successAnsweredBy: existing.successAnsweredBy }),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      }
      this.rows.set(keyOf(s), settlement)
      this.nonceSpaces.set(settlement.id, lower(s.nonceSpace ?? s.asset))
      this.claimedAt.set(settlement.id, now)
      return { _tag: 'Claimed' as const, settlement }
    })
  readonly markSubmitted = (ref: ClaimRef, attempt: Attempt) =>
    this.transition(
      ref,
      ['claimed'],
      (row) => {
        if (this.heldByAnotherRow(row, attempt)) return undefined
        const first = stored(attempt)
        return { ...row, state: 'submitted', attempts: [first], txHash: first.txHash }
      },
      'markSubmitted',
    )
  // All rows or none (docs/ARCHITECTURE.md §5.7); the hash may be held only by the rows of this batch.
  readonly markBatchSubmitted = (refs: ReadonlyArray<ClaimRef>, attempt: Attempt) =>
    this.call((): Transition => {
      const rows = refs.map((ref) => this.byId(ref.id))
      const ids = new Set(refs.map((ref) => ref.id))
      const holder = this.ownerOfHash(lower(attempt.txHash))
      const ready = rows.every(
        (row, i) => row !== undefined && row.generation === refs[i]!.generation && row.state === 'claimed',
      )
      if (!ready || ids.size !== refs.length || (holder !== undefined && !ids.has(holder))) return 'stale'
      rows.forEach((row, batchIndex) => {
        const first = stored({ ...attempt, batchIndex })
        this.rows.set(keyOf(row!), {
          ...row!,
          state: 'submitted',
          attempts: [first],
          txHash: first.txHash,
          updatedAt: this.now(),
        })
      })
      return 'applied'
    }, 'markBatchSubmitted')
  readonly markBatchReleased = (
    refs: ReadonlyArray<ClaimRef>,
    from: 'claimed' | 'submitted',
    reason: string,
    mined?: MinedTransaction,
  ) =>
    this.call((): ReadonlyArray<string> => {
      const rows = refs
        .map((ref) => this.byId(ref.id))
        .filter(
          (row, i): row is Settlement =>
            row !== undefined && row.generation === refs[i]!.generation && row.state === from,
        )
      for (const row of rows) this.rows.set(keyOf(row), { ...released(row, reason, mined), updatedAt: this.now() })
      return rows.map((row) => row.id)
    }, 'markBatchReleased')
  readonly addBatchAttempt = (previous: TxHash, attempt: Attempt) =>
    this.call((): ReadonlyArray<string> => {
      const [old, replacement] = [lower(previous), lower(attempt.txHash)]
      const rows = [...this.rows.values()].filter((row) => {
        const latest = row.attempts.at(-1)
        return (
          row.state === 'submitted' &&
          row.attempts.some((a) => a.txHash === old && a.batchIndex !== undefined) &&
          (latest?.txHash === old || latest?.txHash === replacement)
        )
      })
      const holder = this.ownerOfHash(replacement)
      if (holder !== undefined && !rows.some((row) => row.id === holder)) return []
      for (const row of rows) {
        const latest = row.attempts.at(-1)!
        if (latest.txHash === replacement || latest.accountNonce !== attempt.accountNonce) continue
        const added = stored({ ...attempt, batchIndex: latest.batchIndex })
        this.rows.set(keyOf(row), {
          ...row,
          attempts: [...row.attempts, added],
          txHash: added.txHash,
          updatedAt: this.now(),
        })
      }
      return rows.filter((row) => row.attempts.at(-1)!.accountNonce === attempt.accountNonce).map((row) => row.id)
    }, 'addBatchAttempt')
  // Replacements share the account nonce of the claim's latest attempt (docs/ARCHITECTURE.md §5.4); one the claim
  // already has is applied and changes nothing.
  readonly addAttempt = (ref: ClaimRef, attempt: Attempt) =>
    this.transition(ref, ['submitted'], (row) => {
      if (row.attempts.at(-1)?.accountNonce !== attempt.accountNonce || this.heldByAnotherRow(row, attempt))
        return undefined
      const replacement = stored(attempt)
      if (row.attempts.some((a) => a.txHash === replacement.txHash)) return { unchanged: row }
      return { ...row, attempts: [...row.attempts, replacement], txHash: replacement.txHash }
    })
  private readonly mined = (ref: ClaimRef, receipt: TransferReceipt, answerId?: string) =>
    this.transition(
      ref,
      ['submitted'],
      (row) =>
        row.attempts.some((a) => a.txHash === lower(receipt.txHash))
          ? {
              ...withoutOutcome(row),
              state: receipt.succeeded ? 'confirmed' : 'reverted',
              txHash: lower(receipt.txHash),
              ...blockOf(receipt),
              gasUsed: receipt.gasUsed,
              ...(receipt.succeeded ? {} : { error: receipt.revertReason ?? 'reverted' }),
              ...(receipt.succeeded && answerId !== undefined
                ? { successAnsweredBy: row.successAnsweredBy ?? answerId }
                : {}),
            }
          : undefined,
      'markMined',
    )
  readonly markMined = ((ref: ClaimRef, receipt: TransferReceipt, answerId?: string) =>
    answerId === undefined
      ? this.mined(ref, receipt)
      : pipe(
          this.mined(ref, receipt, answerId),
          TE.map((transition): MinedAndMarked => ({
            transition,
            successMarked: transition === 'applied' && this.byId(ref.id)?.successAnsweredBy === answerId,
          })),
        )) as MarkMined
  readonly markReleased = (ref: ClaimRef, from: 'claimed' | 'submitted', reason: string, mined?: MinedTransaction) =>
    this.transition(ref, [from], (row) => released(row, reason, mined))
  // None of our attempts was mined, so the row names no transaction; the note says what the chain told. One log of
  // another's transaction pays one payment: a log another row of the network names is `payment-log-taken`.
  readonly markSettledElsewhere = (
    ref: ClaimRef,
    note: string,
    by?: MinedTransaction,
  ): TE.TaskEither<JournalUnavailable, SettledElsewhereTransition> =>
    this.call((): SettledElsewhereTransition => {
      const row = this.byId(ref.id)
      if (row === undefined || row.generation !== ref.generation || row.state !== 'submitted') return 'stale'
      const taken = [...this.rows.values()].some(
        (other) =>
          by?.paymentLogIndex !== undefined &&
          other.id !== row.id &&
          other.network === row.network &&
          other.txHash === lower(by.txHash) &&
          other.paymentLogIndex === by.paymentLogIndex,
      )
      if (taken) return 'payment-log-taken'
      this.rows.set(keyOf(row), {
        ...withoutOutcome(row),
        state: 'confirmed',
        error: note,
        ...(by === undefined ? {} : { txHash: lower(by.txHash), ...blockOf(by) }),
        ...(by?.paymentLogIndex === undefined ? {} : { paymentLogIndex: by.paymentLogIndex }),
        updatedAt: this.now(),
      })
      return 'applied'
    }, 'markSettledElsewhere')
  readonly markCancelled = (ref: ClaimRef, note: string, by?: MinedTransaction) =>
    this.transition(ref, ['submitted'], (row) => ({
      ...withoutOutcome(row),
      state: 'cancelled',
      error: note,
      ...(by === undefined ? {} : { txHash: lower(by.txHash), ...blockOf(by) }),
    }))
  readonly markRefused = (ref: ClaimRef, reason: string) =>
    this.transition(ref, ['submitted'], (row) =>
      row.reorgedAt === undefined
        ? undefined
        : {
            ...row,
            refusals: (row.refusals ?? 0) + 1,
            firstRefusedAt: row.firstRefusedAt ?? this.now(),
            error: reason,
          },
    )
  readonly markUnsettleable = (ref: ClaimRef, reason: string) =>
    this.transition(ref, ['submitted'], (row) =>
      row.reorgedAt === undefined ? undefined : { ...row, state: 'unsettleable', error: reason },
    )
  // Only a row answered success records when a reorg sent it back (it may then be signed again at a new nonce).
  readonly markReorged = (ref: ClaimRef) =>
    this.transition(ref, ['confirmed', 'reverted', 'final', 'cancelled', 'released'], (row) => {
      if (row.state === 'released' && !watchedEnd(row)) return undefined
      const latest = row.attempts.at(-1)
      const answeredSuccess = row.state === 'confirmed' || row.state === 'final'
      return {
        ...withoutOutcome(row),
        state: 'submitted',
        ...(answeredSuccess ? { reorgedAt: this.now() } : {}),
        ...(latest === undefined ? {} : { txHash: latest.txHash }),
      }
    })
  readonly markResigned = (ref: ClaimRef, attempt: Attempt) =>
    this.transition(ref, ['submitted'], (row) => {
      if (
        row.reorgedAt === undefined ||
        row.attempts.some((a) => a.accountNonce === attempt.accountNonce) ||
        this.heldByAnotherRow(row, attempt)
      )
        return undefined
      const resigned = stored(attempt)
      return { ...row, attempts: [...row.attempts, resigned], txHash: resigned.txHash }
    })
  readonly markFinal = (owner: Address, blocks: ReadonlyArray<RecordedBlock>) =>
    this.call(() => {
      const moved = [...this.rows.values()].filter(
        (r) =>
          r.owner === lower(owner) &&
          r.state === 'confirmed' &&
          r.blockHash !== undefined &&
          blocks.some((b) => sameBlock(r, b)),
      )
      for (const row of moved) this.rows.set(keyOf(row), { ...row, state: 'final', updatedAt: this.now() })
      return moved.map((r) => r.id)
    })
  readonly markMinedAgain = (ref: ClaimRef, receipt: TransferReceipt) =>
    this.transition(ref, ['confirmed', 'final', 'reverted', 'cancelled', 'released'], (row) => {
      const hash = lower(receipt.txHash)
      if (row.state === 'released' && !watchedEnd(row)) return undefined
      if (row.txHash !== hash && !row.attempts.some((a) => a.txHash === hash)) return undefined
      const { blockHash: _old, error, watchEndedAt: _watch, ...rest } = row
      const keepsError = row.state === 'confirmed' || row.state === 'final'
      return {
        ...rest,
        state: 'confirmed',
        txHash: hash,
        ...blockOf(receipt),
        gasUsed: receipt.gasUsed,
        ...(keepsError && error !== undefined ? { error } : {}),
      }
    })
  readonly blocksToWatch = (owner: Address, finalFrom: bigint, limit: number) =>
    this.call(() => {
      const watched = [...this.rows.values()].filter(
        (r) =>
          r.owner === lower(owner) &&
          r.blockNumber !== undefined &&
          r.blockHash !== undefined &&
          (r.state === 'confirmed' || (r.state === 'final' && r.blockNumber >= finalFrom) || watchedEnd(r)),
      )
      const blocks = new Map(
        watched.map((r) => [
          `${r.blockNumber}|${r.blockHash ?? ''}`,
          blockOf({ blockNumber: r.blockNumber!, ...(r.blockHash ? { blockHash: r.blockHash } : {}) }),
        ]),
      )
      return [...blocks.values()]
        .sort((a, b) =>
          a.blockNumber < b.blockNumber
            ? -1
            : a.blockNumber > b.blockNumber
              ? 1
              : (a.blockHash ?? '').localeCompare(b.blockHash ?? ''),
        )
        .slice(0, limit)
    })
  readonly endWatch = (owner: Address, below: bigint) =>
    this.call(() => {
      const ended = [...this.rows.values()].filter(
        (r) => r.owner === lower(owner) && watchedEnd(r) && r.blockNumber !== undefined && r.blockNumber < below,
      )
      for (const row of ended) this.rows.set(keyOf(row), { ...row, watchEndedAt: this.now(), updatedAt: this.now() })
      return ended.map((r) => r.id)
    })
  readonly findInBlock = (owner: Address, block: RecordedBlock) =>
    this.call(() =>
      [...this.rows.values()].filter(
        (r) =>
          r.owner === lower(owner) &&
          (r.state === 'confirmed' || r.state === 'final' || watchedEnd(r)) &&
          sameBlock(r, block),
      ),
    )
  readonly ownersWithOpenRows = (finalFrom?: bigint) =>
    this.call((): ReadonlyArray<OwnerRows> => {
      const open = [...this.rows.values()].filter(
        (r) =>
          r.state === 'claimed' ||
          r.state === 'submitted' ||
          r.state === 'confirmed' ||
          watchedEnd(r) ||
          (finalFrom !== undefined &&
            r.state === 'final' &&
            r.blockHash !== undefined &&
            r.blockNumber !== undefined &&
            r.blockNumber >= finalFrom),
      )
      const counts = new Map<Address, number>()
      for (const row of open) counts.set(row.owner, (counts.get(row.owner) ?? 0) + 1)
      return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([owner, rows]) => ({ owner, rows }))
    })
  readonly accountNoncesInFlight = (owner: Address) =>
    this.call(() => {
      const submitted = [...this.rows.values()].filter(
        (r) => (r.state === 'submitted' || r.state === 'confirmed' || watchedEnd(r)) && r.owner === lower(owner),
      )
      const nonces = new Set(submitted.flatMap((r) => r.attempts.flatMap((a) => a.accountNonce ?? [])))
      return [...nonces].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    })
  readonly findUnfinished = (updatedBefore: Date, limit: number, after?: UnfinishedCursor) =>
    this.call(() =>
      [...this.rows.values()]
        .filter((r) => (r.state === 'claimed' || r.state === 'submitted') && r.updatedAt < updatedBefore)
        .filter(
          (r) =>
            after === undefined ||
            r.updatedAt > after.updatedAt ||
            (r.updatedAt.getTime() === after.updatedAt.getTime() && BigInt(r.id) > BigInt(after.id)),
        )
        .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || Number(BigInt(a.id) - BigInt(b.id)))
        .slice(0, limit),
    )
  readonly findReleasedToJudge = (limit: number, after?: UnfinishedCursor) =>
    this.call(() =>
      [...this.rows.values()]
        .filter(
          (r) =>
            releasedToJudge(r) &&
            r.attempts.every((a) => a.batchIndex === undefined) &&
            (r.attempts.length > 0 || [...this.earlierLoneAttempts.values()].includes(r.id)),
        )
        .filter(
          (r) =>
            after === undefined ||
            r.updatedAt > after.updatedAt ||
            (r.updatedAt.getTime() === after.updatedAt.getTime() && BigInt(r.id) > BigInt(after.id)),
        )
        .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || Number(BigInt(a.id) - BigInt(b.id)))
        .slice(0, limit),
    )
  readonly markReleasedMined = (ref: ClaimRef, receipt: TransferReceipt) =>
    this.transition(ref, ['released'], (row) => {
      const hash = lower(receipt.txHash)
      const loneOfRow =
        row.attempts.some((a) => a.txHash === hash && a.batchIndex === undefined) ||
        this.earlierLoneAttempts.get(hash) === row.id
      if (!releasedToJudge(row) || !loneOfRow) return undefined
      const { error: _error, ...rest } = row
      return { ...rest, state: 'confirmed', txHash: hash, ...blockOf(receipt), gasUsed: receipt.gasUsed }
    })
  // Its last change stays the release's: only the watch ends.
  readonly endReleasedWatch = (ref: ClaimRef) =>
    this.call((): Transition => {
      const row = this.byId(ref.id)
      if (row === undefined || row.generation !== ref.generation || !releasedToJudge(row)) return 'stale'
      this.rows.set(keyOf(row), { ...row, watchEndedAt: this.now() })
      return 'applied'
    })
  readonly markSuccessAnswered = (id: string, answerId: string) =>
    this.call((): Transition => {
      const row = this.byId(id)
      if (row === undefined || row.successAnsweredBy !== undefined) return 'stale'
      this.rows.set(keyOf(row), { ...row, successAnsweredBy: answerId })
      return 'applied'
    }, 'markSuccessAnswered')
  readonly findByKey = (key: SettlementKey) => this.call(() => O.fromNullable(this.rows.get(keyOf(key))))
  readonly findByTxHash = (txHash: TxHash) =>
    this.call(() => {
      const id = this.ownerOfHash(lower(txHash))
      return O.fromNullable(id === undefined ? undefined : this.byId(id))
    })
  readonly findByIdempotencyKey = (key: string) =>
    this.call(() => {
      const newestFirst = [...this.rows.values()]
        .filter((r) => r.idempotencyKey === key)
        .sort((a, b) => this.claimTime(b) - this.claimTime(a) || Number(BigInt(b.id) - BigInt(a.id)))
      return O.fromNullable(newestFirst[0])
    })

  private claimTime = (row: Settlement): number => (this.claimedAt.get(row.id) ?? row.createdAt).getTime()
}
