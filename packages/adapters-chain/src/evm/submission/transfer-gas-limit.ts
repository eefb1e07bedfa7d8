import type { Hex } from '@x402-facilitator/domain'
import { parseTransaction } from 'viem'
import { hexToBytesStrict } from '../hex-bytes.js'

// The gas limit of the transaction a settle sends (its call is transfer-call.ts).

/**
 * Gas limit of a settle through Multicall3 (factory, then transfer). Measured on anvil: DemoSmartWalletFactory's
 * deployment plus the transfer to a fresh payee on
 * Circle's USDC uses ≈ 373 000 (test/circle-usdc-erc6492.test.ts). The verify lets the
 * factory call use up to `ERC6492_FACTORY_GAS` (1 000 000); this leaves room for that, Multicall3 and the transfer.
 */
export const MULTICALL3_SETTLE_GAS_LIMIT = 1_300_000n

/**
 * Gas limit of a Permit2 settle the node could not try (its fallback). A proxy call (Permit2's signature check, a fresh
 * nonce word, the token's `transferFrom`) used 99 344 gas on anvil with DUSDT to a payee holding nothing (exact) and
 * 83 347 to one holding some (upto), against ≈ 85 000–103 000 for an EIP-3009 transfer; `settleWithPermit` with the
 * EIP-2612 permit used 134 381 (test/permit2-settle.test.ts). With a trial, the limit comes from it as for EIP-3009.
 */
export const PERMIT2_SETTLE_GAS_LIMIT = 250_000n

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
 * The one gas margin on what a trial measured: a quarter more — a contract wallet's `isValidSignature` only gets
 * 63/64 of what is left (EIP-150), and the chain may move between the trial and the block — plus `headroom` for what
 * the trial found warm that the block may not.
 */
export const withGasMargin = (measured: bigint, headroom: bigint): bigint => (measured * 5n) / 4n + headroom

/**
 * Gas the trial may not have paid: it runs after the payment's own reads (and other payments' trials) in one call,
 * so the token's address and code may be warm there and cold in the transaction (EIP-2929: 2 600 each, 2 100 a slot).
 */
const COLD_ACCESS_HEADROOM = 20_000n

export interface GasLimits {
  /**
   * Without a trial's figure (the node could not try the call) [120 000: a transfer to a fresh payee uses
   * ≈ 85 000–103 000].
   */
  readonly fallback: bigint
  /** Never more [1 300 000: a trial may use at most 1 000 000, plus the intrinsic cost and the margin]. */
  readonly cap: bigint
}

/**
 * A transaction's gas limit from its trial (rule 10): the intrinsic cost plus what the call used, with the margin (a
 * payee swept to zero between the trial and the block costs 17 100 more for its balance slot) and
 * `COLD_ACCESS_HEADROOM`; never below `fallback` (an unused limit costs nothing), nor EIP-7623's floor, nor above
 * `cap`. Measured on Circle's USDC: a trial of 51 669 gas for a transfer that used 85 740, and 102 588 once its payee
 * was swept to zero (a limit of 94 501, from the trial alone and a quarter, ran out).
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
 * transaction's gas past the intrinsic cost (a transaction's top-level call pays no EIP-150 64th), so the intrinsic
 * cost plus the trial's cap gives the token exactly the gas its trial had, plus `COLD_ACCESS_HEADROOM` for what the
 * trial found warm; a wallet that burns when it gets less than in its trial then gets no less. Never below what the
 * trial measured calls for (`transferGasLimit`). Unknown cap: the highest limit.
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
