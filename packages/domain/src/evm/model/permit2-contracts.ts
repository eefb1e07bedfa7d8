import type { Permit2Contracts } from './evm-payment.js'

/** The canonical (CREATE2) addresses, the same on every chain the x402 contracts are deployed to. */
export const CANONICAL_PERMIT2_CONTRACTS: Required<Permit2Contracts> = {
  permit2: '0x000000000022d473030f116ddee9f6b43ac78ba3',
  exactProxy: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
  uptoProxy: '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002',
}
