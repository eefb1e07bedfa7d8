import { expect } from 'chai'
import type { Settlement } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, claimed, keyOf, newSettlement, receipt, refOf, right, uniqueAddress } from './journal-samples.js'

/**
 * Released rows whose transaction may be mined after all (docs/ARCHITECTURE.md §5.5): listed until judged, moved
 * `released → confirmed` only in the claim whose attempt was mined.
 */
export const releasedMinedContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())
  const ids = (rows: ReadonlyArray<Settlement>) => rows.map((r) => r.id)

  /** A row released from `submitted` after its lone attempt, as recovery releases a refused transaction. */
  const releasedAfterAttempt = async (owner = uniqueAddress()) => {
    const settlement = await steps().claimNew({ owner })
    const first = attempt({ accountNonce: 11n })
    expect(await right(journal().markSubmitted(refOf(settlement), first))).to.equal('applied')
    expect(await right(journal().markReleased(refOf(settlement), 'submitted', 'the node refuses it'))).to.equal(
      'applied',
    )
    return { settlement, ref: refOf(settlement), first }
  }

  describe('released rows whose transaction may be mined after all', () => {
    it('lists a row released after its attempt, not one released before any, not a batch row, in pages', async () => {
      const one = await releasedAfterAttempt()
      const two = await releasedAfterAttempt()
      const beforeAny = await steps().claimNew()
      await right(journal().markReleased(refOf(beforeAny), 'claimed', 'abandoned'))
      const batchRows = [await steps().claimNew(), await steps().claimNew()]
      await right(journal().markBatchSubmitted(batchRows.map(refOf), attempt()))
      await right(journal().markBatchReleased(batchRows.map(refOf), 'submitted', 'refused'))

      const listed = await right(journal().findReleasedToJudge(100))
      expect(ids(listed)).to.include.members([one.ref.id, two.ref.id])
      expect(ids(listed)).not.to.include.members([beforeAny.id])
      expect(ids(listed).some((id) => batchRows.some((r) => r.id === id))).to.equal(false)
      const row = listed.find((r) => r.id === one.ref.id)!
      expect(row.attempts.map((a) => a.txHash)).to.deep.equal([one.first.txHash.toLowerCase()])
      expect(row.attempts[0]!.accountNonce).to.equal(11n)

      const first = await right(journal().findReleasedToJudge(1))
      expect(first).to.have.length(1)
      const rest = await right(journal().findReleasedToJudge(100, { updatedAt: first[0]!.updatedAt, id: first[0]!.id }))
      expect(ids(rest)).not.to.include(first[0]!.id)
      expect([...ids(first), ...ids(rest)]).to.include.members([one.ref.id, two.ref.id])
    })

    it("markReleasedMined confirms the row at its attempt's block; its block and nonce are then followed", async () => {
      const owner = uniqueAddress()
      const row = await releasedAfterAttempt(owner)
      const mined = receipt(row.first.txHash, { blockNumber: 900n })
      expect(await right(journal().markReleasedMined(row.ref, mined))).to.equal('applied')
      const now = await steps().load(keyOf(row.settlement))
      expect(now).to.deep.include({ state: 'confirmed', txHash: row.first.txHash.toLowerCase(), blockNumber: 900n })
      expect(now.blockHash).to.equal(mined.blockHash)
      expect(now.gasUsed).to.equal(mined.gasUsed)
      expect(now.error).to.equal(undefined)
      expect(ids(await right(journal().findReleasedToJudge(100)))).not.to.include(row.ref.id)
      expect(await right(journal().blocksToWatch(owner, 0n, 10))).to.deep.equal([
        { blockNumber: 900n, blockHash: mined.blockHash },
      ])
      expect(await right(journal().accountNoncesInFlight(owner))).to.deep.equal([11n])
      expect(await right(journal().markReleasedMined(row.ref, mined))).to.equal('stale')
    })

    it('markReleasedMined is stale for a transaction none of its attempts is', async () => {
      const row = await releasedAfterAttempt()
      const other = attempt()
      expect(await right(journal().markReleasedMined(row.ref, receipt(other.txHash)))).to.equal('stale')
      expect((await steps().load(keyOf(row.settlement))).state).to.equal('released')
    })

    it('a row claimed again is left to its new claim: stale for the old claim, not listed while claimed', async () => {
      const row = await releasedAfterAttempt()
      const again = claimed(await right(journal().claim({ ...newSettlement(), ...keyOf(row.settlement) })))
      expect(again.generation).to.equal(row.ref.generation + 1)
      expect(await right(journal().markReleasedMined(row.ref, receipt(row.first.txHash)))).to.equal('stale')
      expect(await right(journal().endReleasedWatch(row.ref))).to.equal('stale')
      expect((await steps().load(keyOf(row.settlement))).state).to.equal('claimed')
      expect(ids(await right(journal().findReleasedToJudge(100)))).not.to.include(row.ref.id)
    })

    it("a row a retry took back and released unsigned: listed; confirmed by its earlier claim's attempt", async () => {
      const row = await releasedAfterAttempt()
      const again = claimed(await right(journal().claim({ ...newSettlement(), ...keyOf(row.settlement) })))
      const ref = refOf(again)
      expect(await right(journal().markReleased(ref, 'claimed', 'its signing failed'))).to.equal('applied')
      const listed = (await right(journal().findReleasedToJudge(100))).find((r) => r.id === ref.id)
      expect(listed?.attempts).to.deep.equal([])
      expect(await right(journal().markReleasedMined(ref, receipt(attempt().txHash)))).to.equal('stale')
      const mined = receipt(row.first.txHash, { blockNumber: 901n })
      expect(await right(journal().markReleasedMined(ref, mined))).to.equal('applied')
      const now = await steps().load(keyOf(row.settlement))
      expect(now).to.deep.include({ state: 'confirmed', generation: ref.generation, blockNumber: 901n })
      expect(now.txHash).to.equal(row.first.txHash.toLowerCase())
    })

    it('endReleasedWatch ends the watch once: the row stays released, no longer listed', async () => {
      const row = await releasedAfterAttempt()
      expect(await right(journal().endReleasedWatch(row.ref))).to.equal('applied')
      expect(await right(journal().endReleasedWatch(row.ref))).to.equal('stale')
      const now = await steps().load(keyOf(row.settlement))
      expect(now.state).to.equal('released')
      expect(now.watchEndedAt).to.be.instanceOf(Date)
      expect(ids(await right(journal().findReleasedToJudge(100)))).not.to.include(row.ref.id)
      expect(await right(journal().markReleasedMined(row.ref, receipt(row.first.txHash)))).to.equal('stale')
    })
  })
}
