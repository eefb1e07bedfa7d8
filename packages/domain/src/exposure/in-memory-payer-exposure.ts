import * as O from 'fp-ts/lib/Option.js'
import { availableBalance } from '../model/available-balance.js'
import type { Address } from '../model/payment.js'
import type { PayerExposure } from '../ports/payer-exposure.js'

/**
 * This replica's in-flight amounts per payer. Node runs one request's synchronous code at a time,
 * so the check and the reservation in `reserve` cannot interleave with another settle's.
 */
export const makeInMemoryPayerExposure = (): PayerExposure => {
  const totals = new Map<Address, bigint>()
  const inFlight = (payer: Address) => totals.get(payer) ?? 0n
  const adjust = (payer: Address, delta: bigint) => {
    const next = inFlight(payer) + delta
    if (next === 0n) totals.delete(payer)
    else totals.set(payer, next)
  }
  return {
    inFlight,
    reserve: (payer, amount, balance) => {
      if (availableBalance(balance, inFlight(payer)) < amount) return O.none
      adjust(payer, amount)
      let released = false
      return O.some(() => {
        if (released) return
        released = true
        adjust(payer, -amount)
      })
    },
  }
}
