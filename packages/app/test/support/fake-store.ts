import { UNFINISHED_STATES, type EvmAddress as Address, type Store } from '@x402-facilitator/domain'
import { FakeJournal } from '@x402-facilitator/domain/fake-journal'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { OpenStore } from '../../src/modules/store-module.js'

/**
 * A store in memory: the domain's FakeJournal (it passes the journal contract suite the Postgres journal passes),
 * this replica alone alive, its locks never lost. Passed to `startFacilitator` in place of Postgres.
 */
export const openFakeStore =
  (journal: FakeJournal = new FakeJournal(() => new Date())): OpenStore =>
  async ({ infrastructure, networks }): Promise<Store> => {
    const own = new Set<Address>(infrastructure.facilitators.map((account) => account.toLowerCase() as Address))
    const unfinishedSettlements = async () => {
      const counts = { claimed: 0, submitted: 0, confirmed: 0 }
      for (const row of journal.rows.values())
        if ((UNFINISHED_STATES as ReadonlyArray<string>).includes(row.state)) counts[row.state as keyof typeof counts]++
      return counts
    }
    return {
      journal,
      journalFor: () => journal,
      livenessFor: () => ({ isAlive: (owner) => TE.right(own.has(owner.toLowerCase() as Address)) }),
      // Its locks, never lost.
      replicaLocks: networks.flatMap(({ chainId, accounts }) =>
        accounts.map((account) => ({ chainId, account, held: () => true })),
      ),
      readiness: { pendingMigrations: async () => [] },
      metrics: { unfinishedSettlements, journalStatements: () => 0, otherStatements: () => 0 },
      stop: async () => {},
    }
  }
