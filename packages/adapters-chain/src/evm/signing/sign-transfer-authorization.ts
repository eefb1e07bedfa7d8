import type { EvmAddress as Address, Authorization, Eip712Domain, Hex } from '@x402-facilitator/domain'
import { serializeErc6492Signature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export interface SignTransferAuthorizationParameters {
  readonly privateKey: Hex
  readonly domain: Eip712Domain
  readonly authorization: Authorization
}

/** EIP-3009's typed-data definition, as viem's `signTypedData` / `verifyTypedData` take it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/**
 * What a paying client does (tests, the demo): EIP-712 sign `TransferWithAuthorization`; `r ‖ s ‖ v` with v ∈
 * {27, 28}.
 */
export const signTransferAuthorization = ({
  privateKey,
  domain,
  authorization,
}: SignTransferAuthorizationParameters): Promise<Hex> =>
  privateKeyToAccount(privateKey).signTypedData({
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId,
      verifyingContract: domain.verifyingContract,
    },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  })

/**
 * A signature of a wallet not deployed yet, wrapped (ERC-6492) with the factory call that deploys it, as a client sends
 * it.
 */
export const wrapErc6492Signature = (factory: Address, factoryCalldata: Hex, signature: Hex): Hex =>
  serializeErc6492Signature({ address: factory, data: factoryCalldata, signature })
