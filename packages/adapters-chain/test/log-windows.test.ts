import { expect } from 'chai'
import { numberToHex } from 'viem'
import type { ChainRpc } from '../src/index.js'
import {
  CLAIM_MARGIN_SECONDS,
  logWindowsBack,
  MAX_WINDOWS,
  searchBounds,
  WINDOW_BLOCKS,
} from '../src/evm/rpc/log-windows.js'

/** A chain whose block n was mined at second `n` (only `eth_getBlockByNumber` is read); counts the blocks read. */
const blockPerSecond = () => {
  const counted = { reads: 0 }
  const read = async (_method: string, params?: ReadonlyArray<unknown>) => {
    counted.reads++
    return { timestamp: params![0] }
  }
  return { rpc: { read } as unknown as ChainRpc, counted }
}

/** No end to the authorization's validity. */
const NEVER = 2n ** 64n

const windows = async (to: bigint, since: bigint, until = NEVER) => {
  const found: Array<[bigint, bigint]> = []
  for await (const w of logWindowsBack(blockPerSecond().rpc, to, { since, until }))
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

  it('a head later than validBefore: starts where the chain passed it, at most a window above, and reads its blocks', async () => {
    const to = 10_000_000n
    const validBefore = 3_456_789n
    const { rpc, counted } = blockPerSecond()
    const found: Array<[bigint, bigint]> = []
    for await (const w of logWindowsBack(rpc, to, { since: validBefore - 2_500n, until: validBefore }))
      found.push([BigInt(w.fromBlock), BigInt(w.toBlock)])
    expect(Number(found[0]![1] - validBefore)).to.be.within(0, Number(WINDOW_BLOCKS))
    expect(found.at(-1)![0] <= validBefore - 2_500n).to.equal(true)
    expect(found).to.have.length.at.most(4)
    // 6.5 million blocks back: 13 doublings, as many halvings, and the windows' own reads.
    expect(counted.reads).to.be.at.most(2 * 13 + 1 + found.length)
  })

  it('a head not later than validBefore: starts at the head, after one read of its time', async () => {
    const { rpc, counted } = blockPerSecond()
    for await (const w of logWindowsBack(rpc, 5_000n, { since: 4_500n, until: 5_000n })) {
      expect(w).to.deep.equal({ fromBlock: numberToHex(4_001n), toBlock: numberToHex(5_000n) })
      expect(counted.reads).to.equal(1)
      break
    }
  })

  it(`a validity longer than ${MAX_WINDOWS} windows, long ago: at most ${MAX_WINDOWS} windows back from its end`, async () => {
    const found = await windows(10_000_000n, 0n, 5_000_000n)
    expect(found).to.have.length(Number(MAX_WINDOWS))
    expect(Number(found[0]![1] - 5_000_000n)).to.be.within(0, Number(WINDOW_BLOCKS))
  })

  it('a node without a block it reads (behind) fails the search instead of ending it short', async () => {
    const behind = { read: async () => null } as unknown as ChainRpc
    const read = async () => {
      for await (const _ of logWindowsBack(behind, 5_000n, { since: 0n, until: NEVER })) void _
    }
    await read().then(
      () => expect.fail('the search ended as if nothing were there'),
      (error: Error) => expect(error.message).to.include('no block 5000'),
    )
  })

  it('the bounds: the later of validAfter and the claim less the margin; validBefore plus the margin', () => {
    expect(searchBounds({ validAfter: 1_000_000n, validBefore: 1_000_600n }, new Date(500_000_000))).to.deep.equal({
      since: 1_000_000n - CLAIM_MARGIN_SECONDS,
      until: 1_000_600n + CLAIM_MARGIN_SECONDS,
    })
    expect(searchBounds({ validAfter: 0n, validBefore: NEVER }, new Date(2_000_000_000)).since).to.equal(
      2_000_000n - CLAIM_MARGIN_SECONDS,
    )
  })

  it('hex block numbers, as eth_getLogs takes them', async () => {
    for await (const w of logWindowsBack(blockPerSecond().rpc, 999n, { since: 0n, until: NEVER }))
      expect(w).to.deep.equal({ fromBlock: numberToHex(0n), toBlock: numberToHex(999n) })
  })
})
