import type { Address } from '../model/payment.js'
import type { Clock } from '../ports/clock.js'

export interface PenaltyBoxOptions {
  /** How long a payer stays refused, and the window over which gas lost to payers with code is counted. */
  readonly penaltyMs: number
  /**
   * Gas lost to payers with code (their failed batch items, their reverted transactions) within the window, past
   * which every payer with code goes alone: fresh wallets cost nothing, so a per-payer penalty alone is no bound.
   */
  readonly lostGasBudget: bigint
  /**
   * Gas lost to reverted lone transactions of payers with code within the window, past which no payer with code is
   * sent at all [unset: no such bound]: alone, a payer with code gets its trial's whole gas cap, so each fresh wallet
   * that burns it costs that much.
   */
  readonly loneLostGasBudget?: bigint
  /**
   * Gas lost to lone transactions of payers without code that reverted for their balance or allowance within the
   * window, past which only payers without code seen paying through this replica are sent [unset: no such bound]:
   * each such revert suspends its payer, and fresh wallets cost nothing; a payer that has paid is no fresh wallet.
   */
  readonly fundsLostGasBudget?: bigint
  /**
   * Payments of one payer with code in flight at once (reserved, no receipt judged yet) [2: its first and one more].
   */
  readonly maxInFlightPerPayer?: number
}

/** Why a reservation was refused: the network's budget (with what is in flight), or the payer's payments in flight. */
export type ReservationRefused =
  { readonly _tag: 'BudgetSpent'; readonly until: Date } | { readonly _tag: 'PayerInFlight'; readonly until: Date }

/**
 * Payers that made us spend gas for nothing (docs/ARCHITECTURE.md §5.7), one network's: a payer whose batch item ran
 * out of gas is not batched for a while; a payer with code whose own transaction reverted is not sent at all for a
 * while; once the gas lost to payers with code within the window reaches its budget, no payer with code is batched
 * until it falls back; and once their reverted lone transactions alone reach `loneLostGasBudget`, none is sent. In
 * memory, per replica: a bound on what one replica spends, forgotten at restart.
 */
export interface PenaltyBox {
  readonly refuseBatching: (payer: Address) => void
  readonly refuseSending: (payer: Address) => void
  /**
   * Gas lost to a payer with code: a failed batch item, or (`alone`) its own transaction reverted; or (`funds`) to a
   * payer without code whose own transaction reverted for its balance or allowance.
   */
  readonly lostGas: (gas: bigint, kind?: LossKind) => void
  /** A payer whose payment was mined and succeeded: not a fresh wallet (`fundsLostGasBudget`). */
  readonly paid: (payer: Address) => void
  /** Whether a settler batch may carry this payer's payment now. */
  readonly mayBatch: (payer: Address, payerHasCode: boolean) => boolean
  /** When a payer refused sending may be sent again; undefined: it is not refused. */
  readonly sendingRefusedUntil: (payer: Address) => Date | undefined
  /**
   * When payers with code may be sent again, their lone reverts having spent `loneLostGasBudget`; undefined: they may.
   */
  readonly contractPayersRefusedUntil: () => Date | undefined
  /**
   * When a payer without code that has not paid through this replica may be sent again, reverts for funds having
   * spent `fundsLostGasBudget`; undefined: it may.
   */
  readonly newPayersRefusedUntil: (payer: Address) => Date | undefined
  /**
   * Whether this is the first time `receipt` (a transaction hash and item) is judged (judge-receipt.ts): the live
   * settle, a late receipt and recovery may each see the same one; its penalties count once. Remembered for the window.
   */
  readonly firstJudgement: (receipt: string) => boolean
  /**
   * Takes `gas` (a batch item's bound, or a lone transaction's gas limit) of a payer with code out of the budgets while
   * its transaction is in flight (docs/ARCHITECTURE.md §5.7): refused once lost plus reserved gas has reached the
   * budget (`alone`: the lone budget; else the whole one), or the payer has `maxInFlightPerPayer` in flight. `id`: the
   * claim's; a second reservation under it replaces the first. Undefined: reserved.
   */
  readonly reserve: (id: string, payer: Address, gas: bigint, alone: boolean) => ReservationRefused | undefined
  /** Ends a reservation (its receipt judged, or nothing broadcast); one never ended lapses after `penaltyMs`. */
  readonly settleReservation: (id: string) => void
}

/** Where lost gas counts: a batch item of a payer with code, its lone transaction, or a payer without code's funds. */
export type LossKind = 'alone' | 'funds'

/** Expired entries are swept once a map holds this many (a bound on memory, however many payers misbehave). */
const SWEEP_AT = 10_000
/** Payers seen paying, remembered up to this many (the oldest forgotten first). */
const PAID_REMEMBERED = 100_000

export const makePenaltyBox = (clock: Clock, options: PenaltyBoxOptions): PenaltyBox => {
  const batching = new Map<string, number>()
  const judged = new Map<string, number>()
  const reserved = new Map<
    string,
    { readonly at: number; readonly payer: string; readonly gas: bigint; readonly alone: boolean }
  >()
  const maxInFlight = options.maxInFlightPerPayer ?? 2
  const sending = new Map<string, number>()
  const paidPayers = new Set<string>()
  let losses: Array<{ readonly at: number; readonly gas: bigint; readonly kind: LossKind | 'item' }> = []
  const now = () => clock.now().getTime()

  const refuse = (map: Map<string, number>, payer: string) => {
    const t = now()
    if (map.size >= SWEEP_AT) for (const [key, until] of map) if (until <= t) map.delete(key)
    map.set(payer.toLowerCase(), t + options.penaltyMs)
  }
  const until = (map: Map<string, number>, payer: string): number | undefined => {
    const end = map.get(payer.toLowerCase())
    if (end === undefined) return undefined
    if (end > now()) return end
    map.delete(payer.toLowerCase())
    return undefined
  }
  const recent = () => {
    const since = now() - options.penaltyMs
    losses = losses.filter((loss) => loss.at > since)
    return losses
  }
  const inFlight = () => {
    const since = now() - options.penaltyMs
    for (const [id, r] of reserved) if (r.at <= since) reserved.delete(id)
    return [...reserved.values()]
  }
  const reservedGas = (aloneOnly: boolean) =>
    inFlight().reduce((sum, r) => (aloneOnly && !r.alone ? sum : sum + r.gas), 0n)
  const lost = (kinds: ReadonlyArray<LossKind | 'item'>) => recent().filter((loss) => kinds.includes(loss.kind))
  const sumOf = (of: ReadonlyArray<{ readonly gas: bigint }>) => of.reduce((sum, loss) => sum + loss.gas, 0n)
  const budgetSpent = (): boolean => sumOf(lost(['item', 'alone'])) + reservedGas(false) >= options.lostGasBudget
  const loneSpent = (): boolean =>
    options.loneLostGasBudget !== undefined && sumOf(lost(['alone'])) + reservedGas(true) >= options.loneLostGasBudget
  const payerInFlight = (payer: string) => inFlight().filter((r) => r.payer === payer.toLowerCase())
  /** The time the losses of a kind in the window fall back below its budget (the oldest leave it first). */
  const budgetBackAt = (kind: LossKind, budget: bigint | undefined): number | undefined => {
    if (budget === undefined) return undefined
    const ofKind = lost([kind])
    let sum = sumOf(ofKind)
    for (const loss of ofKind) {
      if (sum < budget) return undefined
      sum -= loss.gas
      if (sum < budget) return loss.at + options.penaltyMs
    }
    return undefined
  }
  const loneBudgetBackAt = () => budgetBackAt('alone', options.loneLostGasBudget)

  return {
    refuseBatching: (payer) => refuse(batching, payer),
    refuseSending: (payer) => {
      refuse(sending, payer)
      refuse(batching, payer)
    },
    lostGas: (gas, kind) => {
      if (gas > 0n) losses.push({ at: now(), gas, kind: kind ?? 'item' })
    },
    paid: (payer) => {
      const key = payer.toLowerCase()
      paidPayers.delete(key)
      paidPayers.add(key)
      if (paidPayers.size > PAID_REMEMBERED) paidPayers.delete(paidPayers.values().next().value!)
    },
    mayBatch: (payer, payerHasCode) =>
      until(batching, payer) === undefined &&
      !(payerHasCode && (budgetSpent() || payerInFlight(payer).length >= maxInFlight)),
    sendingRefusedUntil: (payer) => {
      const end = until(sending, payer)
      return end === undefined ? undefined : new Date(end)
    },
    firstJudgement: (receipt) => {
      if (until(judged, receipt) !== undefined) return false
      refuse(judged, receipt)
      return true
    },
    contractPayersRefusedUntil: () => {
      const back = loneBudgetBackAt() ?? (loneSpent() ? now() + options.penaltyMs : undefined)
      return back === undefined ? undefined : new Date(back)
    },
    newPayersRefusedUntil: (payer) => {
      if (paidPayers.has(payer.toLowerCase())) return undefined
      const back = budgetBackAt('funds', options.fundsLostGasBudget)
      return back === undefined ? undefined : new Date(back)
    },
    reserve: (id, payer, gas, alone) => {
      reserved.delete(id)
      const mine = payerInFlight(payer)
      if (mine.length >= maxInFlight)
        return { _tag: 'PayerInFlight', until: new Date(Math.min(...mine.map((r) => r.at)) + options.penaltyMs) }
      if (alone ? loneSpent() : budgetSpent())
        return { _tag: 'BudgetSpent', until: new Date(loneBudgetBackAt() ?? now() + options.penaltyMs) }
      reserved.set(id, { at: now(), payer: payer.toLowerCase(), gas, alone })
      return undefined
    },
    settleReservation: (id) => {
      reserved.delete(id)
    },
  }
}
