import type { Hex } from '@x402-facilitator/domain'
import { parseTransaction } from 'viem'
import { hexToBytesStrict } from './hex-bytes.js'

/**
 * What a transaction's calldata costs before it runs (EIP-2028: 16 gas a non-zero byte, 4 a zero byte), on top of
 * the 21 000 every transaction pays.
 */
const intrinsicGas = (data: Hex): bigint => {
  const bytes = hexToBytesStrict(data) ?? new Uint8Array()
  let gas = 21_000n
  for (const byte of bytes) gas += byte === 0 ? 4n : 16n
  return gas
}

export interface GasLimits {
  /** Without a trial's figure (the node could not try the call) [120 000: a transfer to a fresh payee uses ≈ 85 000–103 000]. */
  readonly fallback: bigint
  /** Never more [1 300 000: a trial may use at most 1 000 000, plus the intrinsic cost and the margin]. */
  readonly cap: bigint
}

/**
 * A transaction's gas limit from its trial (rule 10): the intrinsic cost plus what the call used, and a quarter more —
 * a contract wallet's `isValidSignature` only gets 63/64 of what is left (EIP-150), and the chain may have moved since
 * the trial (a payee paid for the first time costs 20 000 more for its new balance slot). Measured on Circle's USDC
 * (test/circle-usdc.test.ts): a transfer to a fresh payee uses 102 588 gas, an ERC-1271 wallet's ≈ 105 600.
 */
export const transferGasLimit = (data: Hex, executionGas: bigint | undefined, limits: GasLimits): bigint => {
  if (executionGas === undefined) return limits.fallback
  const wanted = ((intrinsicGas(data) + executionGas) * 5n) / 4n
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
