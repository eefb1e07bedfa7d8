import { UintFromString, type Hex } from '@x402-facilitator/domain'
import { numberToHex } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { decodeAnswer, fieldOf } from './rpc-failure.js'

/** Blocks one `eth_getLogs` asks for [1 000]: within what public nodes and providers serve. */
export const WINDOW_BLOCKS = 1_000n

/**
 * How many windows a search reads at most when the authorization's `validAfter` does not stop it first (0, or long
 * ago): 100 of 1 000 blocks are about two days of 2-second blocks and two weeks of 12-second ones.
 */
export const MAX_WINDOWS = 100n

/**
 * How much earlier than its claim a payment's authorization may have been used: the node that showed it unused may
 * have been behind, and block timestamps and our clock may differ. Ten minutes, as official clients sign `validAfter`
 * before the payment: on a chain of 250 ms blocks, three windows; a settle whose own transaction reverted reads them
 * before it answers.
 */
export const CLAIM_MARGIN_SECONDS = 600n

/**
 * The time (seconds) before which no block can hold the authorization's use or cancellation we look for: the later of
 * `validAfter` (the token refuses a use until then) and `claimedAt` (the payment was unused then), less
 * `CLAIM_MARGIN_SECONDS` (a cancellation may come before `validAfter`, blocks may share a timestamp, clocks differ).
 * Official Permit2 payments sign `validAfter` 0: the claim bounds them.
 */
export const searchSince = (validAfter: bigint, claimedAt: Date): bigint => {
  const claimed = BigInt(Math.floor(claimedAt.getTime() / 1000))
  return (validAfter > claimed ? validAfter : claimed) - CLAIM_MARGIN_SECONDS
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
 * The block ranges of a search for an authorization's use or cancellation, newest first, from `to` back to the first
 * window whose oldest block was mined at or before `since` (seconds, `searchSince`): older blocks cannot hold it. A
 * recovery after a long outage reaches back to the payment's time, not just the last `WINDOW_BLOCKS`. Lazy: a search
 * that finds what it looks for in the first window reads no more.
 */
export async function* logWindowsBack(
  rpc: ChainRpc,
  to: bigint,
  since: bigint,
  windowBlocks: bigint = WINDOW_BLOCKS,
): AsyncGenerator<LogWindow> {
  const span = MAX_WINDOWS * windowBlocks
  const floor = to >= span ? to - span + 1n : 0n
  let end = to
  for (;;) {
    const start = end - floor >= windowBlocks ? end - windowBlocks + 1n : floor
    yield { fromBlock: numberToHex(start), toBlock: numberToHex(end) }
    if (start === floor) return
    const time = await timestampAt(rpc, start)
    if (time <= since) return
    end = start - 1n
  }
}
