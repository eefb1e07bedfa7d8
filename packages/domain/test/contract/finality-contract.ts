import { expect } from 'chai'
import type { Hex } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { facilitator, otherFacilitator, receipt, refOf, right, uniqueHex } from './journal-samples.js'

/** Finality (docs/ARCHITECTURE.md §5.6): block hashes, `final`, the blocks the watcher checks, a row mined again. */
export const finalityContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  /** A confirmed row of `owner` mined at this block. */
  const confirmedAt = async (blockNumber: bigint, blockHash: Hex, owner = facilitator) => {
    const settlement = await steps().claimNew({ owner })
    const row = { key: settlement, ref: refOf(settlement) }
    const first = {
      txHash: uniqueHex(32),
      raw: uniqueHex(120),
      accountNonce: 7n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      sentAt: new Date('2025-01-02T03:04:05.678Z'),
    }
    await right(journal().markSubmitted(row.ref, first))
    await right(journal().markMined(row.ref, receipt(first.txHash, { blockNumber, blockHash })))
    return { ...row, first }
  }

  describe('finality', () => {
    it("markMined records the block's hash; markFinal moves the owner's confirmed rows of those exact blocks only", async () => {
      const [hashA, hashB] = [uniqueHex(32), uniqueHex(32)]
      const inA = await confirmedAt(100n, hashA)
      const alsoInA = await confirmedAt(100n, hashA)
      const sameHeightOtherHash = await confirmedAt(100n, hashB)
      const otherOwner = await confirmedAt(100n, hashA, otherFacilitator)
      expect(await steps().load(inA.key)).to.deep.include({ state: 'confirmed', blockNumber: 100n, blockHash: hashA })

      const moved = await right(journal().markFinal(facilitator, [{ blockNumber: 100n, blockHash: hashA }]))
      expect([...moved].sort()).to.deep.equal([inA.ref.id, alsoInA.ref.id].sort())
      expect((await steps().load(inA.key)).state).to.equal('final')
      expect((await steps().load(sameHeightOtherHash.key)).state).to.equal('confirmed')
      expect((await steps().load(otherOwner.key)).state).to.equal('confirmed')
      // Again: nothing left to move.
      expect(await right(journal().markFinal(facilitator, [{ blockNumber: 100n, blockHash: hashA }]))).to.deep.equal([])
      expect(await right(journal().markFinal(facilitator, []))).to.deep.equal([])
    })

    it("blocksToWatch: the distinct blocks of the owner's confirmed rows and of its final rows from a height, lowest first, bounded", async () => {
      const [h1, h2, h3, h4] = [uniqueHex(32), uniqueHex(32), uniqueHex(32), uniqueHex(32)]
      await confirmedAt(200n, h2)
      await confirmedAt(200n, h2)
      await confirmedAt(190n, h1)
      const finalOld = await confirmedAt(150n, h3)
      const finalRecent = await confirmedAt(210n, h4)
      await right(
        journal().markFinal(facilitator, [
          { blockNumber: 150n, blockHash: h3 },
          { blockNumber: 210n, blockHash: h4 },
        ]),
      )
      await confirmedAt(195n, uniqueHex(32), otherFacilitator)
      expect((await steps().load(finalOld.key)).state).to.equal('final')
      expect((await steps().load(finalRecent.key)).state).to.equal('final')

      expect(await right(journal().blocksToWatch(facilitator, 205n, 10))).to.deep.equal([
        { blockNumber: 190n, blockHash: h1 },
        { blockNumber: 200n, blockHash: h2 },
        { blockNumber: 210n, blockHash: h4 },
      ])
      expect(await right(journal().blocksToWatch(facilitator, 0n, 2))).to.deep.equal([
        { blockNumber: 150n, blockHash: h3 },
        { blockNumber: 190n, blockHash: h1 },
      ])
    })

    it("findInBlock answers the owner's confirmed and final rows of one block", async () => {
      const hash = uniqueHex(32)
      const confirmed = await confirmedAt(300n, hash)
      const final = await confirmedAt(300n, hash)
      await right(journal().markFinal(facilitator, [{ blockNumber: 300n, blockHash: hash }]))
      const stillConfirmed = await confirmedAt(300n, hash)
      await confirmedAt(300n, uniqueHex(32))
      await confirmedAt(300n, hash, otherFacilitator)
      const found = await right(journal().findInBlock(facilitator, { blockNumber: 300n, blockHash: hash }))
      expect(found.map((r) => r.id).sort()).to.deep.equal(
        [confirmed.ref.id, final.ref.id, stillConfirmed.ref.id].sort(),
      )
    })

    it('markMinedAgain moves a confirmed or final row to the block that holds its transaction now, confirmed', async () => {
      const row = await confirmedAt(400n, uniqueHex(32))
      await right(
        journal().markFinal(facilitator, [(await steps().load(row.key)) as { blockNumber: bigint; blockHash: Hex }]),
      )
      const newHash = uniqueHex(32)
      expect(
        await right(
          journal().markMinedAgain(
            row.ref,
            receipt(row.first.txHash, { blockNumber: 402n, blockHash: newHash, gasUsed: 60_000n }),
          ),
        ),
      ).to.equal('applied')
      expect(await steps().load(row.key)).to.deep.include({
        state: 'confirmed',
        txHash: row.first.txHash,
        blockNumber: 402n,
        blockHash: newHash,
        gasUsed: 60_000n,
      })
      // Not a transaction of the row: refused.
      expect(await right(journal().markMinedAgain(row.ref, receipt(uniqueHex(32), { blockNumber: 403n })))).to.equal(
        'stale',
      )
    })

    it('markResigned stores an attempt at a new account nonce, only for a row a reorg sent back; replacements follow it', async () => {
      const row = await confirmedAt(600n, uniqueHex(32))
      const atNine = { ...row.first, txHash: uniqueHex(32), raw: uniqueHex(120), accountNonce: 9n }
      // Not reorged: refused, whatever its state.
      expect(await right(journal().markResigned(row.ref, atNine))).to.equal('stale')
      const notReorged = await steps().submitted()
      expect(await right(journal().markResigned(notReorged.ref, { ...atNine, txHash: uniqueHex(32) }))).to.equal(
        'stale',
      )

      expect(await right(journal().markReorged(row.ref))).to.equal('applied')
      expect((await steps().load(row.key)).reorgedAt).to.be.instanceOf(Date)
      // At the nonce it already holds: refused.
      expect(await right(journal().markResigned(row.ref, { ...row.first, txHash: uniqueHex(32) }))).to.equal('stale')
      expect(await right(journal().markResigned(row.ref, atNine))).to.equal('applied')
      expect(await steps().load(row.key)).to.deep.include({
        state: 'submitted',
        txHash: atNine.txHash,
        attempts: [row.first, atNine],
      })
      // A replacement shares the latest attempt's nonce, not the first's.
      expect(await right(journal().addAttempt(row.ref, { ...row.first, txHash: uniqueHex(32) }))).to.equal('stale')
      const replacement = { ...atNine, txHash: uniqueHex(32), maxFeePerGas: atNine.maxFeePerGas * 2n }
      expect(await right(journal().addAttempt(row.ref, replacement))).to.equal('applied')
      expect(await right(journal().markMined(row.ref, receipt(replacement.txHash, { blockNumber: 610n })))).to.equal(
        'applied',
      )
    })

    it('markReorged takes a final row back to submitted, its block forgotten', async () => {
      const hash = uniqueHex(32)
      const row = await confirmedAt(500n, hash)
      await right(journal().markFinal(facilitator, [{ blockNumber: 500n, blockHash: hash }]))
      expect(await right(journal().markReorged(row.ref))).to.equal('applied')
      const back = await steps().load(row.key)
      expect(back).to.deep.include({ state: 'submitted', txHash: row.first.txHash })
      for (const absent of [back.blockNumber, back.blockHash]) expect(absent).to.equal(undefined)
    })
  })
}
