import * as O from 'fp-ts/lib/Option.js'
import type { Address } from '../model/payment.js'
import {
  availableBalance,
  fromInFlightKey,
  allowanceConflict,
  type InFlightKey,
  type PayerExposure,
  type PaymentKind,
  type AllowanceInFlight,
} from '../ports/payer-exposure.js'

/**
 * This replica's in-flight amounts per payer. Node runs one request's synchronous code at a time,
 * so the check and the reservation in `reserve` cannot interleave with another settle's.
 */
export const makeInMemoryPayerExposure = (): PayerExposure => {
  const totals = new Map<Address, bigint>()
  const throughAllowance = new Map<Address, AllowanceInFlight>()
  /** Amounts kept past their settle, by authorization, until the row ends. */
  const held = new Map<InFlightKey, { readonly payer: Address; readonly amount: bigint; readonly kind: PaymentKind }>()
  const inFlight = (payer: Address) => totals.get(payer) ?? 0n
  const allowanceInFlight = (payer: Address): AllowanceInFlight =>
    throughAllowance.get(payer) ?? { payments: 0, setters: 0 }
  const adjust = (payer: Address, amount: bigint, kind: PaymentKind, step: 1 | -1) => {
    const next = inFlight(payer) + (step === 1 ? amount : -amount)
    if (next === 0n) totals.delete(payer)
    else totals.set(payer, next)
    if (kind === 'balance') return
    const { payments, setters } = allowanceInFlight(payer)
    const counted = { payments: payments + step, setters: setters + (kind === 'allowance-setter' ? step : 0) }
    if (counted.payments === 0) throughAllowance.delete(payer)
    else throughAllowance.set(payer, counted)
  }
  const finished = (key: InFlightKey) => {
    const hold = held.get(key)
    if (hold === undefined) return
    held.delete(key)
    adjust(hold.payer, hold.amount, hold.kind, -1)
  }
  return {
    inFlight,
    allowanceInFlight,
    reserve: (payer, amount, balance, kind = 'balance') => {
      if (availableBalance(balance, inFlight(payer)) < amount) return O.none
      if (allowanceConflict(kind, allowanceInFlight(payer)) !== undefined) return O.none
      adjust(payer, amount, kind, 1)
      let ended = false
      const release = () => {
        if (ended) return
        ended = true
        adjust(payer, amount, kind, -1)
      }
      return O.some({
        release,
        keepUntilFinished: (key) => {
          if (ended) return
          // Recovery may already hold this row (it met it in flight first): one amount per row.
          if (held.has(key)) return release()
          ended = true
          held.set(key, { payer, amount, kind })
        },
      })
    },
    holdUntilFinished: (key, payer, amount, kind = 'balance') => {
      if (held.has(key)) return
      held.set(key, { payer, amount, kind })
      adjust(payer, amount, kind, 1)
    },
    finished,
    kept: () => [...held.keys()].map(fromInFlightKey),
  }
}
