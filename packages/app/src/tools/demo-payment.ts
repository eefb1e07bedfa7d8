import { randomBytes } from 'node:crypto'
import { signTransferAuthorization, wrapErc6492Signature } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Authorization, Eip712Domain, Hex } from '@x402-facilitator/domain'

export interface DemoPaymentParameters {
  readonly payerKey: Hex
  readonly payer: Address
  readonly payTo: Address
  readonly value: bigint
  readonly network: string
  readonly domain: Eip712Domain
  /** Unix seconds [now]. */
  readonly now?: number
  readonly validForSeconds?: number
  readonly nonce?: Hex
  /** How the payer signs [viem's `signTypedData`, as a wallet would]; the benchmark passes a faster one. */
  readonly sign?: (authorization: Authorization) => Promise<Hex>
  /** A smart wallet not deployed yet: the signature is wrapped (ERC-6492) with the factory call that deploys it. */
  readonly erc6492?: { readonly factory: Address; readonly factoryCalldata: Hex }
}

const randomNonce = (): Hex => `0x${randomBytes(32).toString('hex')}`

/** A spec-dialect verify/settle body signed as a paying client would (the demo, the tests, the benchmark). */
export const signedPaymentBody = async (p: DemoPaymentParameters) => {
  const now = p.now ?? Math.floor(new Date().getTime() / 1000)
  const authorization = {
    from: p.payer,
    to: p.payTo,
    value: p.value,
    validAfter: BigInt(now - 60),
    validBefore: BigInt(now + (p.validForSeconds ?? 600)),
    nonce: p.nonce ?? randomNonce(),
  }
  const signed = await (p.sign
    ? p.sign(authorization)
    : signTransferAuthorization({ privateKey: p.payerKey, domain: p.domain, authorization }))
  const signature = p.erc6492 ? wrapErc6492Signature(p.erc6492.factory, p.erc6492.factoryCalldata, signed) : signed
  return {
    paymentPayload: {
      x402Version: '2.0',
      scheme: 'exact',
      network: p.network,
      payload: {
        signature,
        authorization: {
          ...authorization,
          value: authorization.value.toString(),
          validAfter: Number(authorization.validAfter),
          validBefore: Number(authorization.validBefore),
        },
      },
    },
    paymentRequirements: {
      x402Version: '2.0',
      scheme: 'exact',
      network: p.network,
      amount: p.value.toString(),
      asset: p.domain.verifyingContract,
      payTo: p.payTo,
      maxTimeoutSeconds: 60,
    },
  }
}
