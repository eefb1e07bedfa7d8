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
  /** Gas lost to a payer with code: a failed batch item, or (`alone`) its own transaction reverted. */
  readonly lostGas: (gas: bigint, alone?: 'alone') => void
  /** Whether a settler batch may carry this payer's payment now. */
  readonly mayBatch: (payer: Address, payerHasCode: boolean) => boolean
  /** When a payer refused sending may be sent again; undefined: it is not refused. */
  readonly sendingRefusedUntil: (payer: Address) => Date | undefined
  /**
   * When payers with code may be sent again, their lone reverts having spent `loneLostGasBudget`; undefined: they may.
   */
  readonly contractPayersRefusedUntil: () => Date | undefined
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

/** Expired entries are swept once a map holds this many (a bound on memory, however many payers misbehave). */
const SWEEP_AT = 10_000

export const makePenaltyBox = (clock: Clock, options: PenaltyBoxOptions): PenaltyBox => {
  const batching = new Map<string, number>()
  const judged = new Map<string, number>()
  const reserved = new Map<
    string,
    { readonly at: number; readonly payer: string; readonly gas: bigint; readonly alone: boolean }
  >()
  const maxInFlight = options.maxInFlightPerPayer ?? 2
  const sending = new Map<string, number>()
  let losses: Array<{ readonly at: number; readonly gas: bigint; readonly alone: boolean }> = []
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
  const budgetSpent = (): boolean =>
    recent().reduce((sum, loss) => sum + loss.gas, 0n) + reservedGas(false) >= options.lostGasBudget
  const loneSpent = (): boolean =>
    options.loneLostGasBudget !== undefined &&
    recent().reduce((sum, loss) => (loss.alone ? sum + loss.gas : sum), 0n) + reservedGas(true) >=
      options.loneLostGasBudget
  const payerInFlight = (payer: string) => inFlight().filter((r) => r.payer === payer.toLowerCase())
  /** The time the lone losses in the window fall back below their budget (the oldest leave it first). */
  const loneBudgetBackAt = (): number | undefined => {
    const budget = options.loneLostGasBudget
    if (budget === undefined) return undefined
    const lone = recent().filter((loss) => loss.alone)
    let sum = lone.reduce((total, loss) => total + loss.gas, 0n)
    for (const loss of lone) {
      if (sum < budget) return undefined
      sum -= loss.gas
      if (sum < budget) return loss.at + options.penaltyMs
    }
    return undefined
  }

  return {
    refuseBatching: (payer) => refuse(batching, payer),
    refuseSending: (payer) => {
      refuse(sending, payer)
      refuse(batching, payer)
    },
    lostGas: (gas, alone) => {
      if (gas > 0n) losses.push({ at: now(), gas, alone: alone === 'alone' })
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
