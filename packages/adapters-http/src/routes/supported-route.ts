import { describeCapabilities, type ServedNetwork, type ServedToken } from '@x402-facilitator/domain'
import { v1NameOf } from '../dialects/x402-v1-networks.js'
import type { HttpDeps } from '../http-deps.js'
import { sendReport, type HttpMiddleware } from '../http-context.js'

const methodsOf = (token: ServedToken) => token.transferMethods ?? ['eip3009']
const paidByPermit2 = (token: ServedToken) => methodsOf(token).includes('permit2')

/** A token as a kind's `extra.assets` lists it: how it is paid, and whether a permit of it can be sponsored. */
const assetOf = (token: ServedToken) => ({
  address: token.address,
  symbol: token.symbol,
  decimals: token.decimals,
  ...token.eip712,
  minAmount: token.minAmount.toString(),
  transferMethods: methodsOf(token),
  ...(token.eip2612 === true && paidByPermit2(token) ? { eip2612: true } : {}),
})

/**
 * x402 v2's `exact` kind of a network: a resource server keeps only the first kind of a (scheme, network), so every
 * token rides in its `extra`; `name`, `version` and `asset` stay the first token's, as clients read them today.
 */
const exactKind = ({ caip2, tokens }: ServedNetwork) => {
  const first = tokens[0]!
  return {
    x402Version: 2,
    scheme: 'exact',
    network: caip2,
    extra: { ...first.eip712, asset: first.address, assets: tokens.map(assetOf) },
  }
}

/**
 * A Solana network's `exact` kind (scheme_exact_svm.md): `extra.feePayer` is the key that pays the fee, which the
 * payer's transaction must name; each answer names the network's fee payers in turn, as for `upto`.
 */
const svmExactKind = ({ caip2, tokens, signers }: ServedNetwork, turn: number) => ({
  x402Version: 2,
  scheme: 'exact',
  network: caip2,
  extra: { feePayer: signers[turn % signers.length], asset: tokens[0]!.address, assets: tokens.map(assetOf) },
})

const isSvmNetwork = ({ caip2 }: ServedNetwork) => caip2.startsWith('solana:')

/**
 * x402 v1's `exact` kind of a network v1 names (the legacy client reads kinds by v1 name), when one of its tokens is
 * paid by EIP-3009: v1 pays no other way.
 */
const v1ExactKind = (network: ServedNetwork) => {
  const v1Name = v1NameOf(network)
  if (v1Name === undefined || !network.tokens.some((token) => methodsOf(token).includes('eip3009'))) return []
  return [{ x402Version: 1, scheme: 'exact', network: v1Name }]
}

/**
 * The `upto` kind of a network with a token paid through Permit2 and the upto proxy (scheme_upto_evm.md):
 * `extra.facilitatorAddress` is the key the payer's witness names, the only sender its proxy accepts. Each answer names
 * the network's signers in turn, as @x402/evm 2.27 picks one per call; a resource server keeps the one it read first.
 */
const uptoKind = ({ caip2, tokens, signers }: ServedNetwork, turn: number) => {
  const permit2Tokens = tokens.filter((token) => paidByPermit2(token) && token.upto !== false)
  if (permit2Tokens.length === 0 || signers.length === 0) return []
  const first = permit2Tokens[0]!
  const facilitatorAddress = signers[turn % signers.length]!
  return [
    {
      x402Version: 2,
      scheme: 'upto',
      network: caip2,
      extra: { ...first.eip712, asset: first.address, facilitatorAddress, assets: permit2Tokens.map(assetOf) },
    },
  ]
}

/**
 * Under the family (the official facilitator's key) every key, and under each network (x402-rs's) its own: a client
 * reads which keys settle where.
 */
const signersOf = (networks: ReadonlyArray<ServedNetwork>) => ({
  'eip155:*': [...new Set(networks.filter((n) => !isSvmNetwork(n)).flatMap((network) => network.signers))],
  ...(networks.some(isSvmNetwork)
    ? { 'solana:*': [...new Set(networks.filter(isSvmNetwork).flatMap((network) => network.signers))] }
    : {}),
  ...Object.fromEntries(networks.map((network) => [network.caip2, network.signers])),
})

/**
 * `eip2612GasSponsoring` when some token paid through Permit2 has EIP-2612: its permit can ride with the payment.
 * `payment-identifier` always: its id is a settle's Idempotency-Key (docs/ARCHITECTURE.md §5.2). `bazaar` when the
 * discovery catalog is on (§5.10).
 */
const extensionsOf = (networks: ReadonlyArray<ServedNetwork>, discovery: boolean) => [
  ...(discovery ? ['bazaar'] : []),
  ...(networks.some((n) => n.tokens.some((t) => paidByPermit2(t) && t.eip2612 === true))
    ? ['eip2612GasSponsoring']
    : []),
  'payment-identifier',
]

/**
 * Capabilities change only with configuration: cacheable for 60 s (spec, Limits). The spec's fields (the tokens its
 * dialect pays: EIP-3009) and x402 v2's `kinds`, `extensions` and `signers` share one body, so one URL serves both
 * kinds of client; only `upto`'s `facilitatorAddress` changes from one answer to the next.
 */
export const supportedRoute = (deps: HttpDeps): HttpMiddleware => {
  const specNetworks = deps.networks.map((n) => ({
    ...n,
    tokens: isSvmNetwork(n) ? n.tokens : n.tokens.filter((t) => methodsOf(t).includes('eip3009')),
  }))
  const fixed = {
    ...describeCapabilities(specNetworks, deps.facilitator),
    extensions: extensionsOf(deps.networks, deps.discovery !== undefined),
    signers: signersOf(deps.networks),
    // Receipts' signers, not settlement signers (the spec's `signers`): docs/ARCHITECTURE.md §4.
    ...(deps.attestor === undefined
      ? {}
      : { attestation: { current: deps.attestor.current, retired: deps.attestor.retired } }),
  }
  let turn = 0
  return async (ctx) => {
    const kinds = deps.networks.flatMap((network) =>
      isSvmNetwork(network)
        ? [svmExactKind(network, turn)]
        : [exactKind(network), ...uptoKind(network, turn), ...v1ExactKind(network)],
    )
    turn++
    sendReport(ctx, { _tag: 'Capabilities' }, { ...fixed, kinds })
  }
}
