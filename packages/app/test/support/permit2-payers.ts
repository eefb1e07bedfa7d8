import { x402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import type { EvmAddress as Address, Eip712Domain, Hex } from '@x402-facilitator/domain'
import { createPublicClient, erc20Abi, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'

type Network = `${string}:${string}`

/** Signing Permit2 payments with the official client (@x402/evm 2.27) and reading what they moved. */
export interface Permit2Payers {
  readonly caip2: Network
  /** Requirements of `scheme` paying `amount` of the token (`asset`, else the app's) to `payTo` (`upto`: the maximum). */
  readonly requirements: (
    scheme: 'exact' | 'upto',
    amount: bigint,
    o?: { payTo?: Address; maxTimeoutSeconds?: number; facilitatorAddress?: Address; asset?: Address },
  ) => PaymentRequirements
  /** A payload signed by payer `payer` with the official client (@x402/evm 2.27). */
  readonly pay: (payer: number, accepted: PaymentRequirements, o?: { sponsored?: boolean }) => Promise<PaymentPayload>
  readonly body: (payload: PaymentPayload, requirements: PaymentRequirements) => Record<string, unknown>
  /** `owner`'s balance of the app's token, or of `token`. */
  readonly tokenBalance: (owner: Address, token?: Address) => Promise<bigint>
  /** Transactions sent by an account so far. */
  readonly sentBy: (account: Address) => Promise<string>
}

export const permit2Payers = (p: {
  readonly rpcUrl: string
  readonly chainId: number
  readonly asset: Address
  readonly domain: Eip712Domain
  readonly payerKeys: ReadonlyArray<Hex>
  /** The key an `upto` witness names unless told. */
  readonly facilitator: Address
  readonly payee: Address
}): Permit2Payers => {
  const caip2: Network = `eip155:${p.chainId}`
  const publicClient = createPublicClient({ transport: http(p.rpcUrl) })
  return {
    caip2,
    requirements: (scheme, amount, o = {}) => ({
      scheme,
      network: caip2,
      amount: amount.toString(),
      asset: o.asset ?? p.asset,
      payTo: o.payTo ?? p.payee,
      maxTimeoutSeconds: o.maxTimeoutSeconds ?? 120,
      extra: {
        name: p.domain.name,
        version: p.domain.version,
        assetTransferMethod: 'permit2',
        ...(scheme === 'upto' ? { facilitatorAddress: o.facilitatorAddress ?? p.facilitator } : {}),
      },
    }),
    pay: (payer, accepted, o = {}) => {
      const account = privateKeyToAccount(p.payerKeys[payer]!)
      // The client reads the payer's allowance and EIP-2612 nonce itself when the 402 declares sponsoring.
      const signer = toClientEvmSigner(account, publicClient)
      const scheme = accepted.scheme === 'upto' ? new UptoEvmScheme(signer) : new ExactEvmScheme(signer)
      return new x402Client()
        .register('eip155:*', scheme)
        .setSpendControls({ allowedAssets: [{ network: caip2, asset: accepted.asset }] })
        .createPaymentPayload({
          x402Version: 2,
          resource: { url: 'https://api.example/paid' },
          accepts: [accepted],
          ...(o.sponsored ? { extensions: { eip2612GasSponsoring: { info: {}, schema: {} } } } : {}),
        })
    },
    body: (payload, accepted) => ({ x402Version: 2, paymentPayload: payload, paymentRequirements: accepted }),
    tokenBalance: (owner, token = p.asset) =>
      publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    sentBy: async (account) => String(await anvilRpc(p.rpcUrl, 'eth_getTransactionCount', [account, 'latest'])),
  }
}
