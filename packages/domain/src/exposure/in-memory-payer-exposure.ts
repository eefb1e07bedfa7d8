import * as O from 'fp-ts/lib/Option.js'
import { availableBalance } from '../rules/chain-rules.js'
import type { Address } from '../model/payment.js'
import { fromInFlightKey, type InFlightKey, type PayerExposure } from '../ports/payer-exposure.js'

/**
 * This replica's in-flight amounts per payer. Node runs one request's synchronous code at a time,
 * so the check and the reservation in `reserve` cannot interleave with another settle's.
 */
export const makeInMemoryPayerExposure = (): PayerExposure => {
  const totals = new Map<Address, bigint>()
  /** Amounts kept past their settle, by authorization, until the row ends. */
  const held = new Map<InFlightKey, { readonly payer: Address; readonly amount: bigint }>()
  const inFlight = (payer: Address) => totals.get(payer) ?? 0n
  const adjust = (payer: Address, delta: bigint) => {
    const next = inFlight(payer) + delta
    if (next === 0n) totals.delete(payer)
    else totals.set(payer, next)
  }
  const finished = (key: InFlightKey) => {
    const hold = held.get(key)
    if (hold === undefined) return
    held.delete(key)
    adjust(hold.payer, -hold.amount)
  }
  return {
    inFlight,
    reserve: (payer, amount, balance) => {
      if (availableBalance(balance, inFlight(payer)) < amount) return O.none
      adjust(payer, amount)
      let ended = false
      const release = () => {
        if (ended) return
        ended = true
        adjust(payer, -amount)
      }
      return O.some({
        release,
        keepUntilFinished: (key) => {
          if (ended) return
          // Recovery may already hold this row (it met it in flight first): one amount per row.
          if (held.has(key)) return release()
          ended = true
          held.set(key, { payer, amount })
        },
      })
    },
    holdUntilFinished: (key, payer, amount) => {
      if (held.has(key)) return
      held.set(key, { payer, amount })
      adjust(payer, amount)
    },
    finished,
    kept: () => [...held.keys()].map(fromInFlightKey),
  }
}
