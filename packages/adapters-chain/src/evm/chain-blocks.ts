import { CanonicalBytes32, UintFromString, type ChainBlocks, type Hex } from '@x402-facilitator/domain'
import { numberToHex } from 'viem'
import type { ChainRpc } from './rpc/chain-rpc.js'
import { decodeAnswer, fieldOf, readQuantity, tryRpc } from './rpc/rpc-failure.js'

/**
 * The finality watcher's reads (docs/ARCHITECTURE.md §5.6): `eth_blockNumber`, and `eth_getBlockByNumber` (without
 * transactions) for every height asked, made in one turn so that they leave as one JSON-RPC batch. A height the node
 * has no block at (`null`: it is behind, e.g. a URL that took over with a lower head) is left out, and §5.6 judges it
 * at a later head: only another hash at a height says its block was replaced.
 */
export const makeChainBlocks = (rpc: ChainRpc): ChainBlocks => ({
  head: tryRpc('reading the chain head', () => readQuantity(rpc, 'eth_blockNumber')),
  latest: tryRpc('reading the chain head', async () => {
    const block = await rpc.read('eth_getBlockByNumber', ['latest', false])
    return {
      height: decodeAnswer(UintFromString, 'the number of the latest block', fieldOf(block, 'number')),
      hash: decodeAnswer(CanonicalBytes32, 'the hash of the latest block', fieldOf(block, 'hash')),
    }
  }),
  hashesAt: (heights) =>
    tryRpc('reading block hashes', async () => {
      const blocks = await Promise.all(
        heights.map((height) => rpc.read('eth_getBlockByNumber', [numberToHex(height), false])),
      )
      const hashes = new Map<bigint, Hex>()
      blocks.forEach((block, i) => {
        if (block !== null && block !== undefined)
          hashes.set(heights[i]!, decodeAnswer(CanonicalBytes32, 'the hash of a block', fieldOf(block, 'hash')))
      })
      return hashes
    }),
})
