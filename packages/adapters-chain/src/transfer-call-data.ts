import type { Authorization, Hex } from '@x402-facilitator/domain'
import { concatHex, encodeAbiParameters, toFunctionSelector, type AbiFunction } from 'viem'
import { eip3009TokenAbi } from './eip3009-token-abi.js'
import { hexToBytesStrict } from './hex-bytes.js'

const overload = (inputs: number): AbiFunction => {
  const fn = eip3009TokenAbi.find((item): item is AbiFunction & (typeof eip3009TokenAbi)[number] => item.type === 'function' && item.name === 'transferWithAuthorization' && item.inputs.length === inputs)
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
  concatHex([BYTES_SELECTOR, encodeAbiParameters(withBytes.inputs, [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature])])
