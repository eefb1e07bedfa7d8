import { x402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { placeLocalPermit2 } from '@x402-facilitator/adapters-chain/testing'
import type { Address } from '@x402-facilitator/domain'
import { createPublicClient, erc20Abi, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './test-facilitator.js'

type Network = `${string}:${string}`

/** DemoUsdt's units each payer holds: 1 000 DUSDT. */
export const PAYER_UNITS = 1_000_000_000n

export interface Permit2Facilitator extends TestFacilitator {
  readonly caip2: Network
  /** Requirements of `scheme` paying `amount` of DUSDT to `payTo` through Permit2 (`upto`: the maximum). */
  readonly requirements: (
    scheme: 'exact' | 'upto',
    amount: bigint,
    o?: { payTo?: Address; maxTimeoutSeconds?: number; facilitatorAddress?: Address },
  ) => PaymentRequirements
  /** A payload signed by payer `payer` with the official client (@x402/evm 2.27). */
  readonly pay: (payer: number, accepted: PaymentRequirements, o?: { sponsored?: boolean }) => Promise<PaymentPayload>
  readonly body: (payload: PaymentPayload, requirements: PaymentRequirements) => Record<string, unknown>
  readonly tokenBalance: (owner: Address) => Promise<bigint>
  /** Transactions sent by an account so far. */
  readonly sentBy: (account: Address) => Promise<string>
}

/**
 * The real app on DemoUsdt (EIP-2612, Permit2 only: `TRANSFER_METHODS=permit2`), Permit2 and the x402 proxies at
 * their canonical addresses; payers 0 and 1 approved Permit2, payer 2 did not (it pays by a sponsored permit).
 */
export const startPermit2Facilitator = async (env: Record<string, string> = {}): Promise<Permit2Facilitator> => {
  const f = await startTestFacilitator({ TRANSFER_METHODS: 'permit2', ...env }, { payers: 4 }, async (chain) => {
    const payers = chain.payers.map((p) => p.address)
    const placed = await placeLocalPermit2(chain.rpcUrl, {
      demoUsdt: { payers, units: PAYER_UNITS, approving: payers.slice(0, 2) },
    })
    return placed.demoUsdt!
  })
  const caip2: Network = `eip155:${f.chain.chainId}`
  const publicClient = createPublicClient({ transport: http(f.chain.rpcUrl) })
  const requirements: Permit2Facilitator['requirements'] = (scheme, amount, o = {}) => ({
    scheme,
    network: caip2,
    amount: amount.toString(),
    asset: f.asset,
    payTo: o.payTo ?? PAYEE,
    maxTimeoutSeconds: o.maxTimeoutSeconds ?? 120,
    extra: {
      name: f.domain.name,
      version: f.domain.version,
      assetTransferMethod: 'permit2',
      ...(scheme === 'upto' ? { facilitatorAddress: o.facilitatorAddress ?? f.chain.facilitator.address } : {}),
    },
  })
  const pay: Permit2Facilitator['pay'] = (payer, accepted, o = {}) => {
    const account = privateKeyToAccount(f.chain.payers[payer]!.privateKey)
    // The client reads the payer's allowance and EIP-2612 nonce itself when the 402 declares sponsoring.
    const signer = toClientEvmSigner(account, publicClient)
    const scheme = accepted.scheme === 'upto' ? new UptoEvmScheme(signer) : new ExactEvmScheme(signer)
    return new x402Client()
      .register('eip155:*', scheme)
      .setSpendControls({ allowedAssets: [{ network: caip2, asset: f.asset }] })
      .createPaymentPayload({
        x402Version: 2,
        resource: { url: 'https://api.example/paid' },
        accepts: [accepted],
        ...(o.sponsored ? { extensions: { eip2612GasSponsoring: { info: {}, schema: {} } } } : {}),
      })
  }
  return {
    ...f,
    caip2,
    requirements,
    pay,
    body: (payload, accepted) => ({ x402Version: 2, paymentPayload: payload, paymentRequirements: accepted }),
    tokenBalance: (owner) =>
      publicClient.readContract({ address: f.asset, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    sentBy: async (account) => String(await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [account, 'latest'])),
  }
}

export { PAYEE }
