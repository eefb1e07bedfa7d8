import { type EvmAddress as Address, type Authorization, type Hex } from '@x402-facilitator/domain'
import { isAllowedFactory, parseErc6492Signature } from '../wallets/erc6492-signature.js'
import { concatHex, encodeAbiParameters, encodeFunctionData, toFunctionSelector, type AbiFunction } from 'viem'
import { hasCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { eip3009TokenAbi } from './eip3009-token-abi.js'
import { multicall3Abi } from '../../generated/multicall3.js'
import { hexToBytesStrict } from '../hex-bytes.js'
import { isPermit2, permit2CallData } from '../permit2/permit2-call.js'

// The transaction a settle sends: its call (to, data); its gas limit is transfer-gas-limit.ts.

/** Multicall3's address on nearly every chain (github.com/mds1/multicall, deployed by a presigned transaction). */
export const CANONICAL_MULTICALL3_ADDRESS: Address = '0xca11bde05977b3631167028862be2a173976ca11'

export interface TransferAddresses {
  /** The EIP-3009 token. */
  readonly token: Address
  readonly multicall3: Address
  /** `ERC6492_FACTORIES`. */
  readonly allowedFactories: ReadonlyArray<Address>
}

export interface TransferCall {
  readonly to: Address
  readonly data: Hex
  /** Through Multicall3: the wallet's deployment and the transfer, one transaction. */
  readonly viaMulticall3: boolean
}

/**
 * The transaction a settle sends, a pure function of (authorization, signature) for given addresses, so a
 * replacement or recovery re-signs the very same call. An ERC-6492 signature whose factory is allowed goes through
 * Multicall3's `aggregate3`: call 1 the factory (allowFailure: a wallet already deployed is fine), call 2 the token's
 * `transferWithAuthorization(…, bytes innerSignature)` (no allowFailure: a failed transfer reverts the whole
 * transaction, so a successful receipt means the transfer happened; docs/ARCHITECTURE.md, "ERC-6492 payers"). A
 * wrapped signature with any other factory was verified only for a payer already deployed: the token gets the inner
 * signature, nothing else is called.
 */
export const transferCall = (
  authorization: Authorization,
  signature: Hex,
  addresses: TransferAddresses,
  payerHasCode = false,
): TransferCall => {
  // Permit2 (permit2-call.ts): the proxy the permit names moves the token; ERC-6492 payers are not taken for it.
  if (isPermit2(authorization))
    return {
      to: authorization.permit2.spender,
      data: permit2CallData(authorization, signature, addresses.token),
      viaMulticall3: false,
    }
  const wrapped = parseErc6492Signature(signature)
  if (wrapped._tag !== 'Wrapped')
    return { to: addresses.token, data: transferCallData(authorization, signature), viaMulticall3: false }
  const transfer = transferCallDataWithBytes(authorization, wrapped.signature)
  // A payer already deployed needs no factory: calling it anyway would let the wrapper's calldata spend our gas.
  if (payerHasCode || !isAllowedFactory(addresses.allowedFactories, wrapped.factory))
    return { to: addresses.token, data: transfer, viaMulticall3: false }
  const data = encodeFunctionData({
    abi: multicall3Abi,
    functionName: 'aggregate3',
    args: [
      [
        { target: wrapped.factory, allowFailure: true, callData: wrapped.factoryCalldata },
        { target: addresses.token, allowFailure: false, callData: transfer },
      ],
    ],
  })
  return { to: addresses.multicall3, data, viaMulticall3: true }
}

/**
 * Whether the payer of an ERC-6492 wrapped signature already has code (one `eth_getCode`, for wrapped signatures only):
 * `transferCall` then sends the inner signature to the token and calls no factory.
 */
export const makePayerHasCode =
  (rpc: Pick<ChainRpc, 'read'>) =>
  async (authorization: Authorization, signature: Hex): Promise<boolean> => {
    if (isPermit2(authorization) || parseErc6492Signature(signature)._tag !== 'Wrapped') return false
    return hasCode(rpc, authorization.from)
  }

const overload = (inputs: number): AbiFunction => {
  const fn = eip3009TokenAbi.find(
    (item): item is AbiFunction & (typeof eip3009TokenAbi)[number] =>
      item.type === 'function' && item.name === 'transferWithAuthorization' && item.inputs.length === inputs,
  )
  if (!fn) throw new Error(`the token ABI lacks transferWithAuthorization with ${inputs} inputs`)
  return fn
}

// Selector and parameter list found once: `encodeFunctionData` looks the function up and hashes its signature per call.
const withVrs = overload(9)
const withBytes = overload(7)
const VRS_SELECTOR = toFunctionSelector(withVrs)
const BYTES_SELECTOR = toFunctionSelector(withBytes)

/**
 * Calldata of `transferWithAuthorization`. The `v, r, s` form is the one every EIP-3009 token has (USDC before v2.2
 * lacks the `bytes` form); a signature that does not split into v, r, s goes in the `bytes` form, for the token to
 * judge. The bytes go as given, v included: the settle maps an EOA's v 0/1 to 27/28 once, before (`sendableSignature`),
 * and a payer with code gets what it signed, as the batch settler sends it.
 */
export const transferCallData = (a: Authorization, signature: Hex): Hex => {
  const bytes = signature.length === 132 ? hexToBytesStrict(signature) : undefined
  if (!bytes) return transferCallDataWithBytes(a, signature)
  const v = bytes[64]!
  // Every field static: the words written directly, as encodeAbiParameters would (test/transaction-signer.test.ts);
  // viem's generic encoder took ≈ 15 µs a call, and every verify builds this call for its trial (rule 10).
  const words = [a.from, a.to].map((address) => address.slice(2).toLowerCase().padStart(64, '0'))
  for (const n of [a.value, a.validAfter, a.validBefore]) words.push(n.toString(16).padStart(64, '0'))
  const head: Hex = `${VRS_SELECTOR}${words.join('')}${a.nonce.slice(2).toLowerCase()}`
  return `${head}${v.toString(16).padStart(64, '0')}${signature.slice(2, 130).toLowerCase()}`
}

/**
 * Calldata of `transferWithAuthorization(…, bytes signature)` (USDC v2.2): the form a contract signer's signature
 * needs.
 */
export const transferCallDataWithBytes = (a: Authorization, signature: Hex): Hex =>
  concatHex([
    BYTES_SELECTOR,
    encodeAbiParameters(withBytes.inputs, [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature]),
  ])
