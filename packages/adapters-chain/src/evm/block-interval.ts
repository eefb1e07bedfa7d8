import type { ChainRpc } from './rpc/chain-rpc.js'
import { isHexString } from './hex-bytes.js'
import { fieldOf, readQuantity } from './rpc/rpc-failure.js'

/** Headers read: enough for a median that a missed slot or a burst of blocks does not move. */
const SAMPLES = 10

const timestampOf = (header: unknown): bigint | undefined => {
  const time = fieldOf(header, 'timestamp')
  return isHexString(time) ? BigInt(time) : undefined
}

/**
 * The chain's block time in whole seconds, measured from its recent headers: the median gap between the last
 * `SAMPLES` + 1 blocks (a missed slot or a burst of blocks mined at once does not move it). Undefined when the chain
 * has too few blocks to tell (fewer than 4 gaps).
 */
export const measureBlockSeconds = async (rpc: ChainRpc): Promise<number | undefined> => {
  const latest = await readQuantity(rpc, 'eth_blockNumber', [])
  const first = latest > BigInt(SAMPLES) ? latest - BigInt(SAMPLES) : 0n
  if (latest - first < 4n) return undefined
  const numbers = Array.from({ length: Number(latest - first) + 1 }, (_, i) => first + BigInt(i))
  // One turn of the event loop: the reads leave as one JSON-RPC batch.
  const headers = await Promise.all(
    numbers.map((n) => rpc.read('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])),
  )
  const times = headers.map(timestampOf)
  if (times.some((t) => t === undefined)) return undefined
  const gaps = times
    .slice(1)
    .map((t, i) => t! - times[i]!)
    .map((gap) => (gap < 0n ? 0n : gap))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return Number(gaps[Math.floor(gaps.length / 2)]!)
}
