import { expect } from 'chai'
import { numberToHex } from 'viem'
import type { ChainRpc } from '../src/index.js'
import { logWindowsBack, MAX_WINDOWS, WINDOW_BLOCKS } from '../src/log-windows.js'

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

  it('hex block numbers, as eth_getLogs takes them', async () => {
    for await (const w of logWindowsBack(blockPerSecond as unknown as ChainRpc, 999n, 0n))
      expect(w).to.deep.equal({ fromBlock: numberToHex(0n), toBlock: numberToHex(999n) })
  })
})
