import type { Address, Bytes32, ServedNetwork, Settlement } from '@x402-facilitator/domain'

export const SIGNER_A = `0x${'a1'.repeat(20)}` as const
export const SIGNER_B = `0x${'b2'.repeat(20)}` as const
export const SIGNER_C = `0x${'c3'.repeat(20)}` as const
export const USDC_BASE = `0x${'01'.repeat(20)}` as const
export const EURC_BASE = `0x${'02'.repeat(20)}` as const
export const USDT_AMOY = `0x${'03'.repeat(20)}` as const

/** Two networks: the first with two tokens (of different decimals), the second with one; keys partly shared. */
export const twoNetworks: ReadonlyArray<ServedNetwork> = [
  {
    name: 'base-sepolia',
    caip2: 'eip155:84532',
    signers: [SIGNER_A, SIGNER_B],
    tokens: [
      { address: USDC_BASE, symbol: 'USDC', decimals: 6, eip712: { name: 'USDC', version: '2' }, minAmount: 1n },
      { address: EURC_BASE, symbol: 'EURC', decimals: 2, eip712: { name: 'EURC', version: '1' }, minAmount: 100n },
    ],
  },
  {
    name: 'polygon-amoy',
    caip2: 'eip155:80002',
    signers: [SIGNER_B, SIGNER_C],
    tokens: [
      { address: USDT_AMOY, symbol: 'USDT', decimals: 6, eip712: { name: 'Tether', version: '1' }, minAmount: 5n },
    ],
  },
]

const AT = new Date('2026-01-02T03:04:05Z')

/** A confirmed settlement of `payer`'s authorization `nonce` on a network and asset. */
export const settlementOn = (network: string, asset: Address, payer: Address, nonce: Bytes32): Settlement => ({
  id: `${network}-${asset}`,
  generation: 1,
  state: 'confirmed',
  network,
  asset,
  payer,
  nonce,
  payee: SIGNER_C,
  value: 1_000_000n,
  validAfter: 0n,
  validBefore: 1_900_000_000n,
  signature: `0x${'11'.repeat(65)}`,
  owner: SIGNER_A,
  attempts: [],
  createdAt: AT,
  updatedAt: AT,
})
