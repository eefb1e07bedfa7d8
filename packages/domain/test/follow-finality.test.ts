import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  checkFinality,
  evmPaymentEnds,
  settlePayment,
  type ChainBlocks,
  type FinalityDeps,
  type Hex,
} from '@x402-facilitator/domain'
import { BLOCK_42, makeDeps, validRequest, nextAnswerId, withEvm } from './fakes.js'

/** A chain whose block hashes the test sets; counts its batched reads. */
const fakeBlocks = (hashes: Map<bigint, Hex>) => {
  const reads: Array<ReadonlyArray<bigint>> = []
  const blocks: ChainBlocks = {
    head: TE.right(0n),
    latest: TE.right({ height: 0n, hash: BLOCK_42 }),
    hashesAt: (heights) => {
      reads.push(heights)
      return TE.right(new Map(heights.flatMap((h) => (hashes.has(h) ? [[h, hashes.get(h)!] as const] : []))))
    },
  }
  return { blocks, reads }
}

/** One settle mined at block 42 (hash BLOCK_42), then the finality check's deps. */
const setup = async (confirmations = 2) => {
  const d = makeDeps()
  const settled = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(
    withEvm(d.deps),
  )()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Settled')
  const chain = new Map<bigint, Hex>([[42n, BLOCK_42]])
  const { blocks, reads } = fakeBlocks(chain)
  const finality = { confirmations, violationWatchDepth: 16, maxBlocks: 500 }
  const deps: FinalityDeps = { ...d.deps, ends: evmPaymentEnds(d.token), blocks, finality }
  const row = () => [...d.journal.rows.values()][0]!
  const check = async (head: bigint) => {
    const report = await checkFinality(head)(deps)()
    if (E.isLeft(report)) throw new Error(report.left.reason)
    return report.right
  }
  return { d, chain, reads, row, check }
}

describe('checkFinality (docs/ARCHITECTURE.md §5.6)', () => {
  it("a confirmed row whose block is still the chain's becomes final once CONFIRMATIONS deep, not before", async () => {
    const { row, check, reads } = await setup(2)
    expect((await check(43n)).final).to.deep.equal([])
    expect(row().state).to.equal('confirmed')
    expect((await check(44n)).final).to.deep.equal([row().id])
    expect(row()).to.include({ state: 'final', blockHash: BLOCK_42 })
    // One batched read per head, of the watched heights only.
    expect(reads).to.deep.equal([[42n], [42n]])
  })

  it('a confirmed row without a recorded block hash (from before migration 0003) is neither watched nor sent back', async () => {
    const { d, chain, row, check, reads } = await setup(2)
    const { blockHash: _hash, ...legacy } = row()
    d.journal.rows.set([...d.journal.rows.keys()][0]!, legacy)
    chain.set(42n, `0x${'99'.repeat(32)}`)
    expect(await check(50n)).to.deep.equal({ head: 50n, final: [], replaced: [] })
    expect(row().state).to.equal('confirmed')
    expect(reads).to.deep.equal([])
  })

  it('no row to watch: the chain is not read', async () => {
    const d = makeDeps()
    const { blocks, reads } = fakeBlocks(new Map())
    const report = await checkFinality(50n)({
      ...d.deps,
      ends: evmPaymentEnds(d.token),
      blocks,
      finality: { confirmations: 1, violationWatchDepth: 16, maxBlocks: 500 },
    })()
    expect(E.isRight(report) && report.right).to.deep.equal({ head: 50n, final: [], replaced: [] })
    expect(reads).to.deep.equal([])
  })

  it('its block replaced and its transaction in another block now: mined again there, still confirmed', async () => {
    const { d, chain, row, check } = await setup()
    const attempt = row().attempts[0]!
    const newHash: Hex = `0x${'43'.repeat(32)}`
    chain.set(42n, `0x${'99'.repeat(32)}`)
    d.submitter.mined.set(attempt.txHash, {
      txHash: attempt.txHash,
      blockNumber: 43n,
      blockHash: newHash,
      gasUsed: 80_000n,
      succeeded: true,
    })
    const report = await check(45n)
    expect(report.replaced.map((r) => r._tag)).to.deep.equal(['MinedAgain'])
    expect(row()).to.include({ state: 'confirmed', blockNumber: 43n, blockHash: newHash })
  })

  it("a row settled by another party's transaction: re-mined, it counts only if it used the authorization on the new chain", async () => {
    const other: Hex = `0x${'0e'.repeat(32)}`
    const newHash: Hex = `0x${'44'.repeat(32)}`
    for (const usedIt of [false, true]) {
      const { d, chain, row, check } = await setup()
      d.journal.rows.set([...d.journal.rows.keys()][0]!, { ...row(), txHash: other })
      chain.set(42n, `0x${'99'.repeat(32)}`)
      // The other transaction is mined again and succeeds, but it may not be what used the authorization this time.
      d.submitter.mined.set(other, {
        txHash: other,
        blockNumber: 44n,
        blockHash: newHash,
        gasUsed: 50_000n,
        succeeded: true,
      })
      d.token.usedBy = usedIt ? { txHash: other, blockNumber: 44n } : undefined
      const report = await check(46n)
      expect(
        report.replaced.map((r) => r._tag),
        `used it: ${usedIt}`,
      ).to.deep.equal([usedIt ? 'MinedAgain' : 'Reorged'])
      expect(row().state).to.equal(usedIt ? 'confirmed' : 'submitted')
    }
  })

  it('its block replaced and its transaction nowhere on the chain: back to submitted, reported for recovery', async () => {
    const { d, chain, row, check } = await setup()
    chain.set(42n, `0x${'99'.repeat(32)}`)
    // The reorg took its receipt with its block.
    d.submitter.mined.clear()
    const report = await check(45n)
    expect(report.replaced.map((r) => [r._tag, r.row.state])).to.deep.equal([['Reorged', 'confirmed']])
    expect(row()).to.include({ state: 'submitted', txHash: row().attempts[0]!.txHash })
    expect(row().blockNumber).to.equal(undefined)
  })

  it('the chain shorter than its block for now: left alone; replaced once the new chain reaches it, a final row reported as such', async () => {
    const { d, chain, row, check, reads } = await setup(1)
    await check(43n)
    expect(row().state).to.equal('final')
    chain.delete(42n)
    expect((await check(41n)).replaced).to.deep.equal([])
    expect(reads, 'nothing above the head is read').to.have.length(1)
    expect(row().state).to.equal('final')
    chain.set(42n, `0x${'99'.repeat(32)}`)
    d.submitter.mined.clear()
    const report = await check(44n)
    expect(report.replaced.map((r) => [r._tag, r.row.state])).to.deep.equal([['Reorged', 'final']])
    expect(row().state).to.equal('submitted')
  })
})
