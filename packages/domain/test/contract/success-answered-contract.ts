import { expect } from 'chai'
import type { SettlementState } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { claimed, keyOf, newSettlement, refOf, right } from './journal-samples.js'

/** markSuccessAnswered: one `success` answer per authorization, for the row's whole life (docs/ARCHITECTURE.md §5.2). */
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

    it('two answers at once: exactly one is applied', async () => {
      const row = await steps().rowIn('confirmed')
      const both = await Promise.all([right(journal().markSuccessAnswered(row.ref.id, 'a')), right(journal().markSuccessAnswered(row.ref.id, 'b'))])
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
      const again = claimed(await right(journal().claim({ ...newSettlement({ caller: 'ip:10.0.0.9' }), ...keyOf(row) })))
      expect(again.caller).to.equal('ip:10.0.0.9')
      expect(again.requestHash).to.equal(undefined)
    })
  })
}
