import { accountNoncesContract } from './account-nonces-contract.js'
import { attemptsContract } from './attempts-contract.js'
import { batchAttemptsContract } from './batch-attempts-contract.js'
import { claimContract } from './claim-contract.js'
import { finalityContract } from './finality-contract.js'
import { findUnfinishedContract } from './find-unfinished-contract.js'
import { paymentLogContract } from './payment-log-contract.js'
import { permit2ClaimContract } from './permit2-claim-contract.js'
import { releasedMinedContract } from './released-mined-contract.js'
import { rowEndsContract } from './row-ends-contract.js'
import type { JournalUnderTest } from './journal-under-test.js'
import { successAnsweredContract } from './success-answered-contract.js'
import { transitionEffectsContract } from './transition-effects-contract.js'
import { transitionGuardsContract } from './transition-guards-contract.js'
import { otherFamilyRowsContract } from './other-family-rows-contract.js'
import { svmRowsContract } from './svm-rows-contract.js'

export interface JournalContractOptions {
  /**
   * Whether the journal knows Permit2 claims (nonce spaces, waived rows, Permit2 terms) [true]; false only for the
   * previous release's journal, run on this release's schema (adapters-persistence's previous-release-contract.sh).
   */
  readonly permit2?: boolean
  /** Whether the journal judges released rows mined after all (`findReleasedToJudge` and the rest) [true]; likewise. */
  readonly releasedMined?: boolean
  /** Whether the journal keeps one payment log to one row (`payment-log-taken`) [true]; likewise. */
  readonly paymentLog?: boolean
  /** Whether the journal keeps another chain family's rows (no validity window, attempts without nonce or fees, Solana's spellings) [true]; likewise. */
  readonly otherFamilyRows?: boolean
}

/**
 * The `SettlementJournal` port's contract, one suite for every implementation (the Postgres journal and the domain
 * tests' fake): `fresh` gives an empty journal before each test.
 */
export const settlementJournalContract = (
  name: string,
  fresh: () => Promise<JournalUnderTest>,
  options: JournalContractOptions = {},
): void => {
  describe(name, () => {
    let subject: JournalUnderTest | undefined
    beforeEach(async () => {
      subject = await fresh()
    })
    const current = (): JournalUnderTest => {
      if (subject === undefined) throw new Error('no journal under test')
      return subject
    }
    // The suites follow the port's capabilities (ports/journal/): each use case reads the journal through one.
    describe("a settle's claims and lookups (ClaimsJournal, SettlementLookups)", () => {
      claimContract(current)
      transitionGuardsContract(current)
      transitionEffectsContract(current)
      successAnsweredContract(current)
      if (options.permit2 ?? true) permit2ClaimContract(current)
      if (options.paymentLog ?? true) paymentLogContract(current)
      if (options.otherFamilyRows ?? true) {
        otherFamilyRowsContract(current)
        svmRowsContract(current)
      }
    })
    describe('recovery (RecoveryJournal)', () => {
      attemptsContract(current)
      batchAttemptsContract(current)
      findUnfinishedContract(current)
      accountNoncesContract(current)
      rowEndsContract(current)
      if (options.releasedMined ?? true) releasedMinedContract(current)
    })
    describe('finality (FinalityJournal)', () => {
      finalityContract(current)
    })
  })
}
