import { expect } from 'chai'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, facilitator, otherFacilitator, receipt, refOf, right } from './journal-samples.js'

/** accountNoncesInFlight: the nonces recovery must not fill (docs/ARCHITECTURE.md §5.5). */
export const accountNoncesContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  describe('accountNoncesInFlight', () => {
    it("lists the account nonces of every attempt of the owner's submitted and confirmed rows, once each, lowest first, whatever their age", async () => {
      expect(await right(journal().accountNoncesInFlight(facilitator))).to.deep.equal([])
      const replaced = await steps().claimNew()
      await right(journal().markSubmitted(refOf(replaced), attempt({ accountNonce: 9n })))
      await right(journal().addAttempt(refOf(replaced), attempt({ accountNonce: 9n })))
      const lower = await steps().claimNew()
      await right(journal().markSubmitted(refOf(lower), attempt({ accountNonce: 4n })))
      await current().setUpdatedAt(lower.id, new Date('2001-02-03T04:05:06.000Z'))
      // Counted: a confirmed row's (a reorg may send it back). Not counted: another owner's, a claim with nothing
      // signed, a final row, a released one.
      const others = await steps().claimNew({ owner: otherFacilitator })
      await right(journal().markSubmitted(refOf(others), attempt({ accountNonce: 5n })))
      await steps().claimNew()
      const mined = await steps().claimNew()
      const minedAttempt = attempt({ accountNonce: 3n })
      await right(journal().markSubmitted(refOf(mined), minedAttempt))
      await right(journal().markMined(refOf(mined), receipt(minedAttempt.txHash)))
      const final = await steps().claimNew()
      const finalAttempt = attempt({ accountNonce: 2n })
      await right(journal().markSubmitted(refOf(final), finalAttempt))
      const finalReceipt = receipt(finalAttempt.txHash, { blockNumber: 99n })
      await right(journal().markMined(refOf(final), finalReceipt))
      expect(await right(journal().markFinal(facilitator, [finalReceipt]))).to.deep.equal([final.id])
      const released = await steps().claimNew()
      await right(journal().markSubmitted(refOf(released), attempt({ accountNonce: 6n })))
      await right(journal().markReleased(refOf(released), 'submitted', 'nonce consumed'))

      expect(await right(journal().accountNoncesInFlight(facilitator))).to.deep.equal([3n, 4n, 9n])
      expect(await right(journal().accountNoncesInFlight(otherFacilitator))).to.deep.equal([5n])
    })
  })
}
