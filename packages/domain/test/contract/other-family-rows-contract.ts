import { expect } from 'chai'
import type { Attempt } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { UINT256_MAX, claimed, newSettlement, receipt, refOf, right, uniqueHex } from './journal-samples.js'

/** Another chain family's transaction: no account nonce, no fees (the EVM's). */
const bareAttempt = (): Attempt => ({
  txHash: uniqueHex(32),
  raw: uniqueHex(80),
  sentAt: new Date('2025-01-02T03:04:05.000Z'),
})

/**
 * Rows of a chain family other than the EVM (docs/ARCHITECTURE.md §1): a payment without a validity window, attempts
 * without an account nonce or fees, claimed, recorded and mined as any other.
 */
export const otherFamilyRowsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const windowlessClaim = () => {
    const { validAfter: _after, validBefore: _before, ...windowless } = newSettlement()
    return windowless
  }

  describe("another chain family's rows", () => {
    it('claims a payment without a validity window once: it reads back as valid throughout', async () => {
      const claim = windowlessClaim()
      const settlement = claimed(await right(journal().claim(claim)))
      expect([settlement.validAfter ?? 0n, settlement.validBefore ?? UINT256_MAX]).to.deep.equal([0n, UINT256_MAX])
      expect((await right(journal().claim(claim)))._tag).to.equal('Conflict')
    })

    it('records attempts without an account nonce or fees, replaces and mines them; none counts as a nonce in flight', async () => {
      const claim = windowlessClaim()
      const settlement = claimed(await right(journal().claim(claim)))
      const [first, second] = [bareAttempt(), bareAttempt()]
      expect(await right(journal().markSubmitted(refOf(settlement), first))).to.equal('applied')
      expect(await right(journal().addAttempt(refOf(settlement), second))).to.equal('applied')
      expect((await stepsOn(journal()).load(claim)).attempts).to.deep.equal([first, second])
      expect(await right(journal().accountNoncesInFlight(claim.owner))).to.deep.equal([])
      expect(await right(journal().markMined(refOf(settlement), receipt(second.txHash)))).to.equal('applied')
      expect((await stepsOn(journal()).load(claim)).state).to.equal('confirmed')
    })
  })
}
