import { UintFromString, type Hex } from '@x402-facilitator/domain'
import { numberToHex } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { decodeAnswer, fieldOf } from './rpc-failure.js'

/** Blocks one `eth_getLogs` asks for [1 000]: within what public nodes and providers serve. */
export const WINDOW_BLOCKS = 1_000n

/**
 * How many windows a search reads at most, counted back from where it starts (`logWindowsBack`), when the payment's
 * time does not stop it first: 100 of 1 000 blocks are about two days of 2-second blocks, two weeks of 12-second ones.
 */
export const MAX_WINDOWS = 100n

/**
 * How much earlier than its claim a payment's authorization may have been used: the node that showed it unused may
 * have been behind, and block timestamps and our clock may differ. Ten minutes, as official clients sign `validAfter`
 * before the payment: on a chain of 250 ms blocks, three windows; a settle whose own transaction reverted reads them
 * before it answers.
 */
export const CLAIM_MARGIN_SECONDS = 600n

/** The times (seconds) between which a block may hold the authorization's use or cancellation that a search looks for. */
export interface SearchBounds {
  /**
   * The later of `validAfter` (the token refuses a use until then) and the claim (the payment was unused then), less
   * `CLAIM_MARGIN_SECONDS` (a cancellation may come before `validAfter`, blocks may share a timestamp, clocks differ).
   * Official Permit2 payments sign `validAfter` 0: the claim bounds them.
   */
  readonly since: bigint
  /**
   * `validBefore` (the token refuses a use from then on; Permit2's deadline, at it) plus the margin: a search long
   * after the payment (recovery after an outage) starts there, not at the head. A cancellation after it ends nothing
   * the expiry had not ended already.
   */
  readonly until: bigint
}

export const searchBounds = (a: { validAfter: bigint; validBefore: bigint }, claimedAt: Date): SearchBounds => {
  const claimed = BigInt(Math.floor(claimedAt.getTime() / 1000))
  return {
    since: (a.validAfter > claimed ? a.validAfter : claimed) - CLAIM_MARGIN_SECONDS,
    until: a.validBefore + CLAIM_MARGIN_SECONDS,
  }
}

export interface LogWindow {
  readonly fromBlock: Hex
  readonly toBlock: Hex
}

/**
 * The timestamp (seconds) of block `n`. A node without it (behind `to`: another URL took over) fails the search, so
 * the caller tries again, rather than ending it short as if nothing were there.
 */
const timestampAt = async (rpc: ChainRpc, n: bigint): Promise<bigint> => {
  const block = await rpc.read('eth_getBlockByNumber', [numberToHex(n), false])
  if (block === null || block === undefined) throw new Error(`the node has no block ${n}: it is behind`)
  return decodeAnswer(UintFromString, 'the timestamp of a block', fieldOf(block, 'timestamp'))
}

/**
 * The newest block a search needs: `to`, or, when `to` was mined after `until`, a block mined after `until` at most
 * `windowBlocks` above the last one mined by then (every block above it is newer still). Steps back from `to` doubling,
 * then halves the gap: about 2 × log2(blocks back / window) reads, 16 for 100 windows.
 */
const newestNeeded = async (rpc: ChainRpc, to: bigint, until: bigint, windowBlocks: bigint): Promise<bigint> => {
  if ((await timestampAt(rpc, to)) <= until) return to
  let after = to
  let before = -1n
  for (let step = windowBlocks; before < 0n; step *= 2n) {
    const probe = after > step ? after - step : 0n
    if ((await timestampAt(rpc, probe)) <= until) before = probe
    else if (probe === 0n) return 0n
    else after = probe
  }
  while (after - before > windowBlocks) {
    const middle: bigint = (before + after) / 2n
    if ((await timestampAt(rpc, middle)) <= until) before = middle
    else after = middle
  }
  return after
}

/**
 * The block ranges of a search for an authorization's use or cancellation, newest first: from `to`, or from where the
 * chain passed `bounds.until` when `to` is later (`newestNeeded`), back to the first window whose oldest block was
 * mined at or before `bounds.since` (older blocks cannot hold it), at most `MAX_WINDOWS` of them. A recovery after a
 * long outage reads the blocks of the payment's time, not the last ones. Lazy: a search that finds what it looks for
 * in the first window reads no more.
 */
export async function* logWindowsBack(
  rpc: ChainRpc,
  to: bigint,
  bounds: SearchBounds,
  windowBlocks: bigint = WINDOW_BLOCKS,
): AsyncGenerator<LogWindow> {
  const newest = await newestNeeded(rpc, to, bounds.until, windowBlocks)
  const span = MAX_WINDOWS * windowBlocks
  const floor = newest >= span ? newest - span + 1n : 0n
  let end = newest
  for (;;) {
    const start = end - floor >= windowBlocks ? end - windowBlocks + 1n : floor
    yield { fromBlock: numberToHex(start), toBlock: numberToHex(end) }
    if (start === floor) return
    const time = await timestampAt(rpc, start)
    if (time <= bounds.since) return
    end = start - 1n
  }
}
