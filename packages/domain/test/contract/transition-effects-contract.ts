import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, receipt, refOf, right, uniqueHex } from './journal-samples.js'

/** What each transition writes when it applies (docs/ARCHITECTURE.md §5.3–5.5). */
export const transitionEffectsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  /** A submitted row with a replacement: two attempts of one claim. */
  const replaced = async () => {
    const row = await steps().submitted()
    const second = attempt({ maxFeePerGas: row.first.maxFeePerGas! * 2n, sentAt: new Date('2025-01-02T03:05:00.000Z') })
    expect(await right(journal().addAttempt(row.ref, second))).to.equal('applied')
    return { ...row, second }
  }

  describe('what a transition writes', () => {
    it('markSubmitted stores the attempt and names its transaction, in one step', async () => {
      const settlement = await steps().claimNew()
      const first = attempt()
      await right(journal().markSubmitted(refOf(settlement), first))
      const row = await steps().load(settlement)
      expect(row).to.deep.include({ state: 'submitted', txHash: first.txHash, generation: 1, attempts: [first] })
      expect(row.updatedAt.getTime()).to.be.at.least(row.createdAt.getTime())
      expect(await right(journal().findByTxHash(first.txHash))).to.deep.equal(O.some(row))
    })

    it('addAttempt adds replacements oldest first; the latest names the transaction', async () => {
      const { key, ref, first, second } = await replaced()
      const third = attempt({ maxFeePerGas: first.maxFeePerGas! * 3n, sentAt: new Date('2025-01-02T03:06:00.000Z') })
      expect(await right(journal().addAttempt(ref, third))).to.equal('applied')
      expect(await steps().load(key)).to.deep.include({
        state: 'submitted',
        txHash: third.txHash,
        attempts: [first, second, third],
      })
    })

    it("markMined confirms with the block and gas of a receipt for any of the claim's attempts, not only the latest", async () => {
      const { key, ref, first } = await replaced()
      expect(await right(journal().markMined(ref, receipt(first.txHash)))).to.equal('applied')
      const row = await steps().load(key)
      expect(row).to.deep.include({
        state: 'confirmed',
        txHash: first.txHash,
        blockNumber: 12_345_678n,
        gasUsed: 85_000n,
      })
      expect(row.error).to.equal(undefined)
    })

    it("markMined records a revert with its reason, or 'reverted' when the receipt gives none", async () => {
      const withReason = await steps().submitted()
      const mined = receipt(withReason.first.txHash, {
        succeeded: false,
        revertReason: 'FiatTokenV2: authorization is used',
      })
      await right(journal().markMined(withReason.ref, mined))
      expect(await steps().load(withReason.key)).to.deep.include({
        state: 'reverted',
        error: 'FiatTokenV2: authorization is used',
        blockNumber: 12_345_678n,
      })
      const without = await steps().submitted()
      await right(journal().markMined(without.ref, receipt(without.first.txHash, { succeeded: false })))
      expect(await steps().load(without.key)).to.deep.include({ state: 'reverted', error: 'reverted' })
    })

    it("markMined refuses a receipt whose transaction is not one of the claim's attempts", async () => {
      const { key, ref } = await steps().submitted()
      const elsewhere = await steps().submitted()
      expect(await right(journal().markMined(ref, receipt(elsewhere.first.txHash)))).to.equal('stale')
      expect((await steps().load(key)).state).to.equal('submitted')
    })

    it('markReleased keeps the reason; claimed or submitted', async () => {
      const fresh = await steps().claimNew()
      expect(await right(journal().markReleased(refOf(fresh), 'claimed', 'nothing broadcast'))).to.equal('applied')
      expect(await steps().load(fresh)).to.deep.include({ state: 'released', error: 'nothing broadcast' })
      const { key, ref, first } = await steps().submitted()
      expect(await right(journal().markReleased(ref, 'submitted', 'nonce consumed'))).to.equal('applied')
      expect(await steps().load(key)).to.deep.include({ state: 'released', error: 'nonce consumed', attempts: [first] })
    })

    it('markSettledElsewhere confirms without naming a transaction of ours, keeping the note and the attempts', async () => {
      const { key, ref, first } = await steps().submitted()
      expect(await right(journal().markSettledElsewhere(ref, 'authorization used by 0xabc'))).to.equal('applied')
      const row = await steps().load(key)
      expect(row).to.deep.include({ state: 'confirmed', error: 'authorization used by 0xabc', attempts: [first] })
      for (const absent of [row.txHash, row.blockNumber, row.gasUsed]) expect(absent).to.equal(undefined)
    })

    it('markSettledElsewhere names the transaction that used the authorization when the chain told it', async () => {
      const { key, ref } = await steps().submitted()
      const other = { txHash: uniqueHex(32), blockNumber: 77n }
      expect(
        await right(journal().markSettledElsewhere(ref, 'authorization used by another transaction', other)),
      ).to.equal('applied')
      expect(await steps().load(key)).to.deep.include({ state: 'confirmed', txHash: other.txHash, blockNumber: 77n })
    })

    it('markReorged sends a confirmed row back to submitted: receipt forgotten, the latest attempt named; it can be mined again', async () => {
      const { key, ref, first, second } = await replaced()
      await right(journal().markMined(ref, receipt(first.txHash)))
      expect(await right(journal().markReorged(ref))).to.equal('applied')
      const row = await steps().load(key)
      expect(row).to.deep.include({ state: 'submitted', txHash: second.txHash, attempts: [first, second] })
      for (const absent of [row.blockNumber, row.blockHash, row.gasUsed, row.error]) expect(absent).to.equal(undefined)
      expect(await right(journal().markMined(ref, receipt(second.txHash, { blockNumber: 12_345_680n })))).to.equal(
        'applied',
      )
      expect(await steps().load(key)).to.deep.include({ state: 'confirmed', blockNumber: 12_345_680n })
    })

    it('markReorged takes back a reverted receipt (its reason forgotten) and a settlement elsewhere (its note forgotten)', async () => {
      const reverted = await steps().submitted()
      await right(journal().markMined(reverted.ref, receipt(reverted.first.txHash, { succeeded: false })))
      const elsewhere = await steps().submitted()
      await right(journal().markSettledElsewhere(elsewhere.ref, 'used by another transaction'))
      for (const { key, ref, first } of [reverted, elsewhere]) {
        expect(await right(journal().markReorged(ref))).to.equal('applied')
        const row = await steps().load(key)
        expect(row).to.deep.include({ state: 'submitted', txHash: first.txHash })
        expect(row.error).to.equal(undefined)
      }
    })
  })
}
