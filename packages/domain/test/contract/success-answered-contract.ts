import { expect } from 'chai'
import type { SettlementState } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { claimed, keyOf, newSettlement, receipt, refOf, right } from './journal-samples.js'

/**
 * markSuccessAnswered: one `success` answer per authorization, for the row's whole life (docs/ARCHITECTURE.md §5.2).
 */
export const successAnsweredContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  describe('markSuccessAnswered', () => {
    for (const state of ['submitted', 'confirmed', 'final'] satisfies SettlementState[]) {
      it(`a ${state} row: the first answer is applied and read back; every later one is stale and changes nothing`, async () => {
        const row = await steps().rowIn(state)
        expect((await steps().load(row.key)).successAnsweredBy).to.equal(undefined)
        expect(await right(journal().markSuccessAnswered(row.ref.id, 'answer-1'))).to.equal('applied')
        const marked = await steps().load(row.key)
        expect(marked.successAnsweredBy).to.equal('answer-1')
        expect(await right(journal().markSuccessAnswered(row.ref.id, 'answer-2'))).to.equal('stale')
        expect(await right(journal().markSuccessAnswered(row.ref.id, 'answer-1'))).to.equal('stale')
        expect(await steps().load(row.key)).to.deep.equal(marked)
      })
    }

    it('markMined with an answer id marks the success once; a second answer id does not take it; a row already marked keeps its mark', async () => {
      const row = await steps().submitted()
      const mined = receipt(row.first.txHash)
      expect(await right(journal().markMined(row.ref, mined, 'answer-1'))).to.deep.equal({
        transition: 'applied',
        successMarked: true,
      })
      expect(await steps().load(row.key)).to.deep.include({ state: 'confirmed', successAnsweredBy: 'answer-1' })
      expect(await right(journal().markMined(row.ref, mined, 'answer-2'))).to.deep.equal({
        transition: 'stale',
        successMarked: false,
      })
      expect(await right(journal().markSuccessAnswered(row.ref.id, 'answer-2'))).to.equal('stale')
      expect((await steps().load(row.key)).successAnsweredBy).to.equal('answer-1')

      const marked = await steps().submitted()
      expect(await right(journal().markSuccessAnswered(marked.ref.id, 'replay'))).to.equal('applied')
      expect(await right(journal().markMined(marked.ref, receipt(marked.first.txHash), 'first'))).to.deep.equal({
        transition: 'applied',
        successMarked: false,
      })
      expect(await steps().load(marked.key)).to.deep.include({ state: 'confirmed', successAnsweredBy: 'replay' })

      const reverted = await steps().submitted()
      expect(
        await right(journal().markMined(reverted.ref, receipt(reverted.first.txHash, { succeeded: false }), 'answer')),
      ).to.deep.equal({ transition: 'applied', successMarked: false })
      expect((await steps().load(reverted.key)).successAnsweredBy).to.equal(undefined)
    })

    it('two answers at once: exactly one is applied', async () => {
      const row = await steps().rowIn('confirmed')
      const both = await Promise.all([
        right(journal().markSuccessAnswered(row.ref.id, 'a')),
        right(journal().markSuccessAnswered(row.ref.id, 'b')),
      ])
      expect([...both].sort()).to.deep.equal(['applied', 'stale'])
    })

    it('an unknown row is stale', async () => {
      expect(await right(journal().markSuccessAnswered('987654321', 'answer'))).to.equal('stale')
    })

    it('a row claimed again keeps its mark: the authorization had its success', async () => {
      const row = await steps().rowIn('claimed')
      expect(await right(journal().markSuccessAnswered(row.ref.id, 'answer-1'))).to.equal('applied')
      await right(journal().markReleased(row.ref, 'claimed', 'test'))
      const again = claimed(await right(journal().claim({ ...newSettlement(), ...keyOf(row.key) })))
      expect(again).to.deep.include({ generation: 2, successAnsweredBy: 'answer-1' })
      expect(await right(journal().markSuccessAnswered(refOf(again).id, 'answer-2'))).to.equal('stale')
    })

    it('stores who asked and the request digest of every claim, keyed or not, and a new claim replaces them', async () => {
      const row = claimed(await right(journal().claim(newSettlement({ caller: 'api:1f2e', requestHash: 'digest-1' }))))
      expect(row).to.deep.include({ caller: 'api:1f2e', requestHash: 'digest-1' })
      expect(row.idempotencyKey).to.equal(undefined)
      await right(journal().markReleased(refOf(row), 'claimed', 'test'))
      const again = claimed(
        await right(journal().claim({ ...newSettlement({ caller: 'ip:10.0.0.9' }), ...keyOf(row) })),
      )
      expect(again.caller).to.equal('ip:10.0.0.9')
      expect(again.requestHash).to.equal(undefined)
    })
  })
}
