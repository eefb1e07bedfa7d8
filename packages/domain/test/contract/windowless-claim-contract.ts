import { expect } from 'chai'
import type { JournalUnderTest } from './journal-under-test.js'
import { UINT256_MAX, claimed, newSettlement, right } from './journal-samples.js'

/** A chain family without a validity window (docs/ARCHITECTURE.md §1): its payments are claimed as any other. */
export const windowlessClaimContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal

  describe('claim without a validity window', () => {
    it('claims a payment without a validity window (a chain family that has none) once: it reads back as valid throughout', async () => {
      const { validAfter: _after, validBefore: _before, ...windowless } = newSettlement()
      const settlement = claimed(await right(journal().claim(windowless)))
      expect([settlement.validAfter ?? 0n, settlement.validBefore ?? UINT256_MAX]).to.deep.equal([0n, UINT256_MAX])
      expect((await right(journal().claim(windowless)))._tag).to.equal('Conflict')
    })
  })
}
