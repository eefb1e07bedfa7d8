import { placeLocalPermit2 } from '@x402-facilitator/adapters-chain/testing'
import { permit2Payers, type Permit2Payers } from './permit2-payers.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './test-facilitator.js'

/** DemoUsdt's units each payer holds: 1 000 DUSDT. */
export const PAYER_UNITS = 1_000_000_000n

export interface Permit2Facilitator extends TestFacilitator, Permit2Payers {}

/**
 * The real app on DemoUsdt (EIP-2612, Permit2 only: `TRANSFER_METHODS=permit2`), Permit2 and the x402 proxies at
 * their canonical addresses; payers 0 and 1 approved Permit2, payer 2 did not (it pays by a sponsored permit).
 */
export const startPermit2Facilitator = async (env: Record<string, string> = {}): Promise<Permit2Facilitator> => {
  const f = await startTestFacilitator({ TRANSFER_METHODS: 'permit2', ...env }, { payers: 5 }, async (chain) => {
    const payers = chain.payers.map((p) => p.address)
    const placed = await placeLocalPermit2(chain.rpcUrl, {
      demoUsdt: { payers, units: PAYER_UNITS, approving: payers.slice(0, 2) },
    })
    return placed.demoUsdt!
  })
  const payers = permit2Payers({
    rpcUrl: f.chain.rpcUrl,
    chainId: f.chain.chainId,
    asset: f.asset,
    domain: f.domain,
    payerKeys: f.chain.payers.map((p) => p.privateKey),
    facilitator: f.chain.facilitator.address,
    payee: PAYEE,
  })
  return { ...f, ...payers }
}

export { PAYEE }
