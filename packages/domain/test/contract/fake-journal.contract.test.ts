import { FakeJournal } from '../fake-journal.js'
import { settlementJournalContract } from './settlement-journal-contract.js'

/** A clock that moves a millisecond each time it is read, as Postgres' `now()` moves between statements. */
const tickingClock = () => {
  let ms = Date.parse('2026-11-22T12:00:00Z')
  return () => new Date(ms++)
}

settlementJournalContract('FakeJournal: the SettlementJournal contract', async () => {
  const journal = new FakeJournal(tickingClock())
  return {
    journal,
    setUpdatedAt: async (id, at) => {
      for (const [key, row] of journal.rows) if (row.id === id) journal.rows.set(key, { ...row, updatedAt: at })
    },
  }
})
