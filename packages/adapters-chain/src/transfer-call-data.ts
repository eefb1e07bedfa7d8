import type { Authorization, Hex } from '@x402-facilitator/domain'
import { encodeFunctionData } from 'viem'
import { demoUsdAbi } from './generated/demo-usd.js'
import { hexToBytesStrict } from './hex-bytes.js'

/**
 * Calldata of `transferWithAuthorization`. The `v, r, s` form is the one every EIP-3009 token has (USDC before v2.2
 * lacks the `bytes` form); a signature that does not split into v, r, s goes in the `bytes` form, for the token to judge.
 */
export const transferCallData = (a: Authorization, signature: Hex): Hex => {
  const bytes = signature.length === 132 ? hexToBytesStrict(signature) : undefined
  const fields = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const
  if (!bytes) return encodeFunctionData({ abi: demoUsdAbi, functionName: 'transferWithAuthorization', args: [...fields, signature] })
  const v = bytes[64]! < 27 ? bytes[64]! + 27 : bytes[64]!
  const r = `0x${signature.slice(2, 66)}` as Hex
  const s = `0x${signature.slice(66, 130)}` as Hex
  return encodeFunctionData({ abi: demoUsdAbi, functionName: 'transferWithAuthorization', args: [...fields, v, r, s] })
}
