import { expect } from 'chai'
import { numberToHex } from 'viem'
import type { ChainRpc } from '../src/index.js'
import { CLAIM_MARGIN_SECONDS, logWindowsBack, MAX_WINDOWS, searchSince, WINDOW_BLOCKS } from '../src/log-windows.js'

/** A chain whose block n was mined at second `n` (only `eth_getBlockByNumber` is read). */
const blockPerSecond = { read: async (_method: string, params?: ReadonlyArray<unknown>) => ({ timestamp: params![0] }) }

const windows = async (to: bigint, validAfter: bigint) => {
  const found: Array<[bigint, bigint]> = []
  for await (const w of logWindowsBack(blockPerSecond as unknown as ChainRpc, to, validAfter))
    found.push([BigInt(w.fromBlock), BigInt(w.toBlock)])
  return found
}

describe('log windows: the ranges an authorization search reads, newest first', () => {
  it('stops at the first window whose oldest block is not after validAfter', async () => {
    expect(await windows(5_000n, 3_500n)).to.deep.equal([
      [4_001n, 5_000n],
      [3_001n, 4_000n],
    ])
  })

  it('with validAfter 0, reads back to block 0, the last window shorter', async () => {
    expect(await windows(2_499n, 0n)).to.deep.equal([
      [1_500n, 2_499n],
      [500n, 1_499n],
      [0n, 499n],
    ])
  })

  it(`with validAfter 0 on a long chain, reads at most ${MAX_WINDOWS} windows`, async () => {
    const to = 10_000_000n
    const found = await windows(to, 0n)
    expect(found).to.have.length(Number(MAX_WINDOWS))
    expect(found.at(-1)).to.deep.equal([to - MAX_WINDOWS * WINDOW_BLOCKS + 1n, to - (MAX_WINDOWS - 1n) * WINDOW_BLOCKS])
  })

  it('a node without a block it reads (behind) fails the search instead of ending it short', async () => {
    const behind = { read: async () => null } as unknown as ChainRpc
    const read = async () => {
      for await (const _ of logWindowsBack(behind, 5_000n, 0n)) void _
    }
    await read().then(
      () => expect.fail('the search ended as if nothing were there'),
      (error: Error) => expect(error.message).to.include('no block 4001'),
    )
  })

  it('the bound is the later of validAfter and the claim, less the margin', () => {
    expect(searchSince(1_000_000n, new Date(500_000_000))).to.equal(1_000_000n - CLAIM_MARGIN_SECONDS)
    expect(searchSince(0n, new Date(2_000_000_000))).to.equal(2_000_000n - CLAIM_MARGIN_SECONDS)
  })

  it('hex block numbers, as eth_getLogs takes them', async () => {
    for await (const w of logWindowsBack(blockPerSecond as unknown as ChainRpc, 999n, 0n))
      expect(w).to.deep.equal({ fromBlock: numberToHex(0n), toBlock: numberToHex(999n) })
  })
})
