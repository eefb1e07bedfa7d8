import { accountNoncesContract } from './account-nonces-contract.js'
import { attemptsContract } from './attempts-contract.js'
import { batchAttemptsContract } from './batch-attempts-contract.js'
import { claimContract } from './claim-contract.js'
import { finalityContract } from './finality-contract.js'
import { findUnfinishedContract } from './find-unfinished-contract.js'
import { rowEndsContract } from './row-ends-contract.js'
import type { JournalUnderTest } from './journal-under-test.js'
import { successAnsweredContract } from './success-answered-contract.js'
import { transitionEffectsContract } from './transition-effects-contract.js'
import { transitionGuardsContract } from './transition-guards-contract.js'

/**
 * The `SettlementJournal` port's contract, one suite for every implementation (the Postgres journal and the domain
 * tests' fake): `fresh` gives an empty journal before each test.
 */
export const settlementJournalContract = (name: string, fresh: () => Promise<JournalUnderTest>): void => {
  describe(name, () => {
    let subject: JournalUnderTest | undefined
    beforeEach(async () => {
      subject = await fresh()
    })
    const current = (): JournalUnderTest => {
      if (subject === undefined) throw new Error('no journal under test')
      return subject
    }
    claimContract(current)
    transitionGuardsContract(current)
    transitionEffectsContract(current)
    attemptsContract(current)
    batchAttemptsContract(current)
    findUnfinishedContract(current)
    accountNoncesContract(current)
    finalityContract(current)
    rowEndsContract(current)
    successAnsweredContract(current)
  })
}
