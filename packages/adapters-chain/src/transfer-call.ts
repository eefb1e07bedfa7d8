import {
  isAllowedFactory,
  parseErc6492Signature,
  type Address,
  type Authorization,
  type Hex,
} from '@x402-facilitator/domain'
import {
  concatHex,
  encodeAbiParameters,
  encodeFunctionData,
  parseTransaction,
  toFunctionSelector,
  type AbiFunction,
} from 'viem'
import { hasCode } from './account-code.js'
import type { ChainRpc } from './chain-rpc.js'
import { eip3009TokenAbi } from './eip3009-token-abi.js'
import { multicall3Abi } from './generated/multicall3.js'
import { hexToBytesStrict } from './hex-bytes.js'

// The transaction a settle sends: its call (to, data) and its gas limit.

/** Multicall3's address on nearly every chain (github.com/mds1/multicall, deployed by a presigned transaction). */
export const CANONICAL_MULTICALL3_ADDRESS: Address = '0xca11bde05977b3631167028862be2a173976ca11'

/**
 * Gas limit of a settle through Multicall3 (factory, then transfer). Measured on anvil: DemoSmartWalletFactory's
 * deployment plus the transfer to a fresh payee on
 * Circle's USDC uses ≈ 373 000 (test/circle-usdc-erc6492.test.ts). The verify lets the
 * factory call use up to `ERC6492_FACTORY_GAS` (1 000 000); this leaves room for that, Multicall3 and the transfer.
 */
export const MULTICALL3_SETTLE_GAS_LIMIT = 1_300_000n

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
    if (parseErc6492Signature(signature)._tag !== 'Wrapped') return false
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
 * lacks the `bytes` form); a signature that does not split into v, r, s goes in the `bytes` form, for the token to judge.
 * The bytes go as given, v included: the settle maps an EOA's v 0/1 to 27/28 once, before (`sendableSignature`), and
 * a payer with code gets what it signed, as the batch settler sends it.
 */
export const transferCallData = (a: Authorization, signature: Hex): Hex => {
  const bytes = signature.length === 132 ? hexToBytesStrict(signature) : undefined
  if (!bytes) return transferCallDataWithBytes(a, signature)
  const v = bytes[64]!
  // Every field static: the words written directly, as encodeAbiParameters would (test/transaction-signer.test.ts);
  // viem's generic encoder took ≈ 15 µs a call, and every verify builds this call for its trial (rule 10).
  const words = [a.from, a.to].map((address) => address.slice(2).toLowerCase().padStart(64, '0'))
  for (const n of [a.value, a.validAfter, a.validBefore]) words.push(n.toString(16).padStart(64, '0'))
  return `${VRS_SELECTOR}${words.join('')}${a.nonce.slice(2).toLowerCase()}${v.toString(16).padStart(64, '0')}${signature.slice(2, 130).toLowerCase()}`
}

/** Calldata of `transferWithAuthorization(…, bytes signature)` (USDC v2.2): the form a contract signer's signature needs. */
export const transferCallDataWithBytes = (a: Authorization, signature: Hex): Hex =>
  concatHex([
    BYTES_SELECTOR,
    encodeAbiParameters(withBytes.inputs, [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature]),
  ])

/**
 * What a transaction's calldata costs: before it runs (EIP-2028: 16 gas a non-zero byte, 4 a zero byte, on top of the
 * 21 000 every transaction pays), and at least in all (EIP-7623: 10 gas a token, a non-zero byte being 4 tokens).
 */
export const calldataGas = (data: Hex): { readonly intrinsic: bigint; readonly floor: bigint } => {
  const bytes = hexToBytesStrict(data) ?? new Uint8Array()
  let tokens = 0n
  for (const byte of bytes) tokens += byte === 0 ? 1n : 4n
  return { intrinsic: 21_000n + 4n * tokens, floor: 21_000n + 10n * tokens }
}

/**
 * The one gas margin on what a trial measured: a quarter more — a contract wallet's `isValidSignature` only gets 63/64
 * of what is left (EIP-150), and the chain may move between the trial and the block — plus `headroom` for what the
 * trial found warm that the block may not.
 */
export const withGasMargin = (measured: bigint, headroom: bigint): bigint => (measured * 5n) / 4n + headroom

/**
 * Gas the trial may not have paid: it runs after the payment's own reads (and other payments' trials) in one call,
 * so the token's address and code may be warm there and cold in the transaction (EIP-2929: 2 600 each, 2 100 a slot).
 */
const COLD_ACCESS_HEADROOM = 20_000n

export interface GasLimits {
  /** Without a trial's figure (the node could not try the call) [120 000: a transfer to a fresh payee uses ≈ 85 000–103 000]. */
  readonly fallback: bigint
  /** Never more [1 300 000: a trial may use at most 1 000 000, plus the intrinsic cost and the margin]. */
  readonly cap: bigint
}

/**
 * A transaction's gas limit from its trial (rule 10): the intrinsic cost plus what the call used, with the margin (a
 * payee swept to zero between the trial and the block costs 17 100 more for its balance slot) and
 * `COLD_ACCESS_HEADROOM`; never below `fallback` (an unused limit costs nothing), nor EIP-7623's floor, nor above `cap`.
 * Measured on Circle's USDC: a trial of 51 669 gas for a transfer that used 85 740, and 102 588 once its payee was
 * swept to zero (a limit of 94 501, from the trial alone and a quarter, ran out).
 */
export const transferGasLimit = (data: Hex, executionGas: bigint | undefined, limits: GasLimits): bigint => {
  if (executionGas === undefined) return limits.fallback
  const { intrinsic, floor } = calldataGas(data)
  const candidates = [withGasMargin(intrinsic + executionGas, COLD_ACCESS_HEADROOM), limits.fallback, floor]
  const wanted = candidates.reduce((a, b) => (a > b ? a : b))
  return wanted < limits.cap ? wanted : limits.cap
}

/**
 * The gas limit of a lone transfer for a payer with code (docs/ARCHITECTURE.md §5.7): its call gets every unit of the
 * transaction's gas past the intrinsic cost (a transaction's top-level call pays no EIP-150 64th), so the intrinsic cost
 * plus the trial's cap gives the token exactly the gas its trial had, plus `COLD_ACCESS_HEADROOM` for what the trial
 * found warm; a wallet that burns when it gets less than in its trial then gets no less. Never below what the trial
 * measured calls for (`transferGasLimit`). Unknown cap: the highest limit.
 */
export const contractPayerGasLimit = (
  data: Hex,
  trialGasCap: bigint | undefined,
  executionGas: bigint | undefined,
  limits: GasLimits,
): bigint => {
  if (trialGasCap === undefined) return limits.cap
  const { intrinsic, floor } = calldataGas(data)
  // Never less than what the trial measured calls for (a trial under another cap, or an estimate, may have used more).
  const wanted = [
    intrinsic + trialGasCap + COLD_ACCESS_HEADROOM,
    transferGasLimit(data, executionGas, limits),
    floor,
  ].reduce((a, b) => (a > b ? a : b))
  return wanted < limits.cap ? wanted : limits.cap
}

/** A replacement carries the same call, so the same gas limit as the attempt it replaces. */
export const replacementGasLimit = (previousRaw: Hex, limits: GasLimits): bigint => {
  try {
    return parseTransaction(previousRaw).gas ?? limits.fallback
  } catch {
    return limits.fallback
  }
}
