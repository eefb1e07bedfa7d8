import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, JournalUnavailable } from '../../model/failures.js'
import type { Address, PaymentNonce, FacilitatorPolicy } from '../../model/payment.js'
import type { ServedNetwork, ServedToken } from '../../model/served-network.js'
import type { Settlement } from '../../ports/settlement-row.js'
import type { SettlementQuery } from '../look-up-settlement.js'
import type { SettleOptions } from '../settle/settle-context.js'
import type { SettleOutcome } from '../settle/settle-outcome.js'
import type { VerifyOutcome } from '../../ports/payment-mechanism.js'

/** What routing reads of a request, whichever chain family's: where it pays. */
export interface RoutedRequest {
  readonly requirements: { readonly network: string; readonly asset: Address }
}

/**
 * What a route's facilitator (lanes/facilitator.ts) offers the HTTP edge and the metrics; `R`: the requests its chain
 * family decodes.
 */
export interface RouteFacilitator<R extends RoutedRequest = RoutedRequest> {
  readonly policy: FacilitatorPolicy
  readonly lanes: ReadonlyArray<{ readonly account: Address; readonly inFlight: number }>
  readonly verify: (request: R) => TE.TaskEither<InfrastructureFailure, VerifyOutcome>
  readonly settle: (request: R, options: SettleOptions) => TE.TaskEither<InfrastructureFailure, SettleOutcome>
  readonly lookUp: (query: SettlementQuery) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  readonly drain: (timeoutMs: number) => Promise<void>
}

/** One (network, token) served: its facilitator, made by its own container (docs/ARCHITECTURE.md §1). */
export interface PaymentRoute<R extends RoutedRequest = RoutedRequest> {
  /** The network's name in the spec dialect (`policy.network`). */
  readonly network: string
  readonly caip2: string
  readonly asset: Address
  /** The token as `/supported` lists it. */
  readonly token: ServedToken
  readonly facilitator: RouteFacilitator<R>
  /** Blocks on top of this one at the network's head last seen (its finality watcher's). */
  readonly confirmationsOf: (blockNumber: bigint) => number | undefined
}

/** docs/ARCHITECTURE.md §4: the networks served, in order, each with its tokens and its signing accounts. */
export const servedNetworks = <R extends RoutedRequest>(routes: ReadonlyArray<PaymentRoute<R>>): ServedNetwork[] => {
  const networks: ServedNetwork[] = []
  for (const route of routes) {
    const known = networks.find((network) => network.name === route.network)
    if (known !== undefined) (known.tokens as ServedToken[]).push(route.token)
    else
      networks.push({
        name: route.network,
        caip2: route.caip2,
        signers: route.facilitator.lanes.map((lane) => lane.account),
        tokens: [route.token],
      })
  }
  return networks
}

/**
 * docs/ARCHITECTURE.md §1: a payment goes to the route of its (network, asset); a token the network does not serve to
 * the network's first route, a network not served to the first route of all: their rules refuse it as one route's
 * always did (rules 2b and 3, same reason codes).
 */
export const routeOf = <R extends RoutedRequest>(
  routes: ReadonlyArray<PaymentRoute<R>>,
  request: R,
): PaymentRoute<R> => {
  const { network, asset } = request.requirements
  const ofNetwork = routes.filter((route) => route.network === network)
  return ofNetwork.find((route) => route.asset === asset) ?? ofNetwork[0] ?? routes[0]!
}

/**
 * Every settlement of an authorization, one per route that has it (the same authorization on two networks, or two
 * tokens, is two payments); on `network` (its spec name) only, when given.
 */
export const lookUpByAuthorization =
  <R extends RoutedRequest>(
    routes: ReadonlyArray<PaymentRoute<R>>,
    query: { readonly payer: Address; readonly nonce: PaymentNonce; readonly network?: string },
  ) =>
  async () => {
    const asked = routes.filter((route) => query.network === undefined || route.network === query.network)
    const byAuthorization = { _tag: 'ByAuthorization', payer: query.payer, nonce: query.nonce } as const
    const found = await Promise.all(asked.map((route) => route.facilitator.lookUp(byAuthorization)()))
    const failed = found.find(E.isLeft)
    if (failed !== undefined) return failed
    return E.right(found.flatMap((answer) => (E.isRight(answer) && O.isSome(answer.right) ? [answer.right.value] : [])))
  }

/**
 * What the HTTP edge calls, each routed here (docs/ARCHITECTURE.md §1): verify and settle by the request's (network,
 * asset), settles waiting as `waitFor` says; lookups by transaction hash on any route's journal (hashes differ per
 * chain, EIP-155: any journal finds the one row), by authorization on every route.
 */
export const routePayments = <R extends RoutedRequest>(
  routes: ReadonlyArray<PaymentRoute<R>>,
  waitFor: SettleOptions['waitFor'],
) => ({
  verifyPayment: (request: R) => routeOf(routes, request).facilitator.verify(request),
  settlePayment: (request: R, options: SettleOptions) =>
    routeOf(routes, request).facilitator.settle(request, { ...options, waitFor }),
  confirmationsOf: (network: string, blockNumber: bigint) =>
    routes.find((route) => route.network === network)?.confirmationsOf(blockNumber),
  lookUpSettlement: (query: SettlementQuery) => routes[0]!.facilitator.lookUp(query),
  lookUpSettlementsByAuthorization: (query: {
    readonly payer: Address
    readonly nonce: PaymentNonce
    readonly network?: string
  }) => lookUpByAuthorization(routes, query),
})
