import type { Address, PaymentRequest, SettlementQuery } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Facilitator } from './facilitator.js'

/** One (network, token) served: its facilitator, made by its own container (docs/ARCHITECTURE.md §1). */
export interface PaymentRoute {
  /** The network's name in the spec dialect (`policy.network`). */
  readonly network: string
  readonly asset: Address
  readonly facilitator: Facilitator
}

/**
 * docs/ARCHITECTURE.md §1: a payment goes to the route of its (network, asset); a token the network does not serve to
 * the network's first route, a network not served to the first route of all: their rules refuse it as one route's
 * always did (rules 2b and 3, same reason codes).
 */
export const routeOf = (routes: ReadonlyArray<PaymentRoute>, request: PaymentRequest): PaymentRoute => {
  const { network, asset } = request.requirements
  const ofNetwork = routes.filter((route) => route.network === network)
  return ofNetwork.find((route) => route.asset === asset) ?? ofNetwork[0] ?? routes[0]!
}

/**
 * Every settlement the query names: by transaction hash the journal's one row (hashes differ per chain); by payer and
 * nonce one per route that has it (the same authorization on two networks is two payments).
 */
export const lookUpAll = (routes: ReadonlyArray<PaymentRoute>, query: SettlementQuery) => async () => {
  const asked = query._tag === 'ByTxHash' ? routes.slice(0, 1) : routes
  const found = await Promise.all(asked.map((route) => route.facilitator.lookUp(query)()))
  const failed = found.find(E.isLeft)
  if (failed !== undefined) return failed
  return E.right(found.flatMap((answer) => (E.isRight(answer) && O.isSome(answer.right) ? [answer.right.value] : [])))
}
