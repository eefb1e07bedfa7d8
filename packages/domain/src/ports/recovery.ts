import type { Settlement, SettlementKey } from './settlement-row.js'

// What a recovery pass is told and what it reports (docs/ARCHITECTURE.md §5.5), whichever mechanism recovers.

/** A row ended without its payment: the payer cancelled, or a reorged row can no longer be mined. */
export interface RowEndAlerts {
  readonly ended: (row: Settlement, end: 'cancelled' | 'unsettleable', reason: string) => void
}

export interface RecoveryPolicy {
  /** Rows younger than this are left to the request that is still handling them. [10 s] */
  readonly minAgeMs: number
  /** A `claimed` row with no attempt this old was abandoned by its claimant. [30 s] */
  readonly claimTimeoutMs: number
  /** An attempt unmined this long gets a replacement with raised fees. [15 s] */
  readonly replaceAfterMs: number
  /** Rows per page of a pass (a pass reads every eligible row). [100] */
  readonly batchSize: number
  /**
   * A reorged row whose trial keeps refusing it (docs/ARCHITECTURE.md §5.6) is declared `unsettleable` once refused
   * this long and `unsettleableAfterTries` times (an expired authorization: after the tries alone). [600 000 ms]
   */
  readonly unsettleableAfterMs: number
  /** [3] */
  readonly unsettleableAfterTries: number
  /** The wait after a refused trial before the next, doubling with each refusal (up to a minute). [1000 ms] */
  readonly refusalBackoffMs: number
}

/** What one row came to. */
export type RowOutcome =
  | 'skipped-owner-alive'
  | 'released-abandoned-claim'
  | 'mined'
  | 'settled-elsewhere'
  | 'released-nonce-consumed'
  /**
   * The node refused the row's stored transaction (a lone one, unmined, no receipt): it can never be mined as it is, so
   * the row is released and its nonce left to be filled (docs/ARCHITECTURE.md §5.3).
   */
  | 'released-node-refused'
  /** Our transaction reverted (the row is `reverted`, still watched for a reorg). */
  | 'reverted'
  /** The payer cancelled the authorization (`AuthorizationCanceled`) before ours was mined. */
  | 'cancelled'
  /** A reorged row whose trial refused it again: counted, tried again after a backoff (docs/ARCHITECTURE.md §5.6). */
  | 'refused'
  /** A reorged row that can no longer be mined, after repeated refusals. */
  | 'unsettleable'
  /** A settler batch mined but reverted as a whole: nothing of it moved, the authorization may be claimed again. */
  | 'released-batch-reverted'
  /** A failed batch item whose lone trial now succeeds, its authorization unused: released for the caller's retry. */
  | 'released-failed-in-batch'
  | 'replaced'
  /** A released row whose transaction was mined after all: `released → confirmed` (docs/ARCHITECTURE.md §5.5). */
  | 'mined-after-release'
  /** A reorged row whose nonce another transaction took, signed again at a new one (docs/ARCHITECTURE.md §5.6). */
  | 'resigned'
  | 'rebroadcast'
  | 'waiting'
  | 'stale'
  | 'failed'

/** What one recovery pass came to (a mechanism adds its own, by declaration merging: the EVM's nonces filled). */
export interface RecoveryReport {
  readonly examined: number
  readonly outcomes: Readonly<Partial<Record<RowOutcome, number>>>
}

export interface FinishReport extends RecoveryReport {
  readonly stillSubmitted: ReadonlyArray<SettlementKey>
}
