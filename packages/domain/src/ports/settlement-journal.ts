import type { ClaimsJournal } from './journal/claims-journal.js'
import type { FinalityJournal } from './journal/finality-journal.js'
import type { RecoveryJournal } from './journal/recovery-journal.js'
import type { SettlementLookups } from './journal/settlement-lookups.js'

export type {
  SettlementKey,
  NewSettlement,
  Attempt,
  Settlement,
  UnfinishedCursor,
  ClaimRef,
  ClaimResult,
  RecordedBlock,
  OwnerRows,
  Transition,
  SettledElsewhereTransition,
  MinedAndMarked,
} from './settlement-row.js'

export type { ReleasedRowsJournal } from './journal/released-rows.js'
export type { ClaimsJournal, MarkMined } from './journal/claims-journal.js'
export type { SettlementLookups } from './journal/settlement-lookups.js'
export type { RecoveryJournal } from './journal/recovery-journal.js'
export type { FinalityJournal } from './journal/finality-journal.js'

/**
 * The journal (docs/ARCHITECTURE.md §5): one implementation, read by each use case through the capability it needs —
 * a settle's claims, lookups, recovery's and the finality watcher's writes.
 */
export interface SettlementJournal extends ClaimsJournal, SettlementLookups, RecoveryJournal, FinalityJournal {}
