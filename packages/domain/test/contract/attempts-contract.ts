import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, receipt, refOf, right } from './journal-samples.js'

/**
 * Attempts are stored idempotently (docs/ARCHITECTURE.md §5): the same transaction twice in one claim is one attempt;
 * a claim taken back may store the very transaction its earlier claim stored; a hash never leads to two rows.
 */
export const attemptsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  describe('attempts', () => {
    it('addAttempt of an attempt the claim already has: applied, nothing written (not even its last change)', async () => {
      const { key, ref, first } = await steps().submitted()
      const second = attempt({ maxFeePerGas: first.maxFeePerGas! * 2n })
      expect(await right(journal().addAttempt(ref, second))).to.equal('applied')
      const before = await steps().load(key)
      for (const again of [first, second]) expect(await right(journal().addAttempt(ref, again))).to.equal('applied')
      expect(await steps().load(key)).to.deep.equal(before)
    })

    it('the same attempt added twice at once is stored once; both calls applied', async () => {
      const { key, ref, first } = await steps().submitted()
      const replacement = attempt()
      const answers = await Promise.all([
        right(journal().addAttempt(ref, replacement)),
        right(journal().addAttempt(ref, replacement)),
      ])
      expect(answers).to.deep.equal(['applied', 'applied'])
      expect((await steps().load(key)).attempts).to.deep.equal([first, replacement])
    })

    it('an attempt whose hash another row holds: stale, nothing written, the hash still leads to its row', async () => {
      const taken = await steps().submitted()
      const fresh = await steps().claimNew()
      const other = await steps().submitted()
      const before = [await steps().load(fresh), await steps().load(other.key)]
      expect(await right(journal().markSubmitted(refOf(fresh), attempt({ txHash: taken.first.txHash })))).to.equal(
        'stale',
      )
      expect(await right(journal().addAttempt(other.ref, attempt({ txHash: taken.first.txHash })))).to.equal('stale')
      expect([await steps().load(fresh), await steps().load(other.key)]).to.deep.equal(before)
      expect(await right(journal().findByTxHash(taken.first.txHash))).to.deep.equal(
        O.some(await steps().load(taken.key)),
      )
    })

    it('a claim taken back stores the very attempt its earlier claim stored; the hash shows the current claim, whose receipt it is', async () => {
      const { key, ref, first } = await steps().submitted()
      await right(journal().markReleased(ref, 'submitted', 'refused by the node'))
      const again = await steps().claimNew({ ...key })
      const newRef = refOf(again)
      expect(await right(journal().markSubmitted(newRef, first))).to.equal('applied')
      const row = await steps().load(key)
      expect(row).to.deep.include({ generation: 2, state: 'submitted', txHash: first.txHash, attempts: [first] })
      expect(await right(journal().findByTxHash(first.txHash))).to.deep.equal(O.some(row))
      expect(await right(journal().addAttempt(newRef, first))).to.equal('applied')
      expect(await right(journal().markMined(ref, receipt(first.txHash)))).to.equal('stale')
      expect(await right(journal().markMined(newRef, receipt(first.txHash)))).to.equal('applied')
      expect(await steps().load(key)).to.deep.include({ generation: 2, state: 'confirmed', txHash: first.txHash })
    })
  })
}
