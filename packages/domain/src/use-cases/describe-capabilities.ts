import type { Address, FacilitatorPolicy } from '../model/payment.js'

/** The spec's Capabilities (`GET /supported`), from configuration alone. */
export interface Capabilities {
  readonly x402Version: '2.0'
  readonly facilitator: Address
  readonly schemes: ReadonlyArray<string>
  readonly networks: ReadonlyArray<string>
  readonly assets: ReadonlyArray<{ readonly network: string; readonly asset: string; readonly address: Address }>
}

export const describeCapabilities = (policy: FacilitatorPolicy): Capabilities => ({
  x402Version: '2.0',
  facilitator: policy.facilitator,
  schemes: ['exact'],
  networks: [policy.network],
  assets: [{ network: policy.network, asset: policy.asset.symbol, address: policy.asset.address }],
})
