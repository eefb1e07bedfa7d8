import type { Address } from '../model/payment.js'
import type { ServedNetwork } from '../model/served-network.js'

/** The spec's Capabilities (`GET /supported`), from configuration alone. */
export interface Capabilities {
  readonly x402Version: '2.0'
  readonly facilitator: Address
  readonly schemes: ReadonlyArray<string>
  readonly networks: ReadonlyArray<string>
  readonly assets: ReadonlyArray<{ readonly network: string; readonly asset: string; readonly address: Address }>
}

/** Every network served, by its spec name, and every token of each; `facilitator` stays one address (the spec's). */
export const describeCapabilities = (
  networks: ReadonlyArray<Pick<ServedNetwork, 'name' | 'tokens'>>,
  facilitator: Address,
): Capabilities => ({
  x402Version: '2.0',
  facilitator,
  schemes: ['exact'],
  networks: networks.map((network) => network.name),
  assets: networks.flatMap(({ name, tokens }) =>
    tokens.map((token) => ({ network: name, asset: token.symbol, address: token.address })),
  ),
})
