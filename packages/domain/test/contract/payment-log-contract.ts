import { expect } from 'chai'
import type { JournalUnderTest } from './journal-under-test.js'
import { stepsOn } from './journal-under-test.js'
import { right, uniqueHex } from './journal-samples.js'

/**
 * One log of another party's transaction pays one payment (docs/ARCHITECTURE.md §5.5): `markSettledElsewhere` credits
 * it to one row; a second row naming it is `payment-log-taken` and stays as it was.
 */
export const paymentLogContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  describe('one payment log, one row', () => {
    it('markSettledElsewhere credits one log of another transaction to one row: a second row naming it is payment-log-taken, unwritten', async () => {
      const [one, two] = [await steps().submitted(), await steps().submitted()]
      const paid = { txHash: uniqueHex(32), blockNumber: 78n, paymentLogIndex: 3 }
      expect(await right(journal().markSettledElsewhere(one.ref, 'used by a multicall', paid))).to.equal('applied')
      expect(await steps().load(one.key)).to.deep.include({ state: 'confirmed', paymentLogIndex: 3 })

      expect(await right(journal().markSettledElsewhere(two.ref, 'used by a multicall', paid))).to.equal(
        'payment-log-taken',
      )
      expect(await steps().load(two.key)).to.deep.include({ state: 'submitted', txHash: two.first.txHash })
      // Another log of the same transaction pays another payment.
      const next = { ...paid, paymentLogIndex: 5 }
      expect(await right(journal().markSettledElsewhere(two.ref, 'used by a multicall', next))).to.equal('applied')

      // A reorg forgets the log: the row holds it no more.
      expect(await right(journal().markReorged(one.ref))).to.equal('applied')
      expect((await steps().load(one.key)).paymentLogIndex).to.equal(undefined)
    })
  })
}
