import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Knex } from 'knex'
import type { Address, JournalUnavailable, ReplicaLiveness } from '@x402-facilitator/domain'
import { defaultJournalTimeoutMs, journalCall } from '../journal/journal-statements.js'
import { legacyReplicaLockKey, lockKeyOf, replicaLockKey, type LockOwner } from './replica-lock-key.js'

/** Whether any session of this database holds one of these advisory locks. */
const anyHeld = (
  knex: Knex,
  keys: ReadonlyArray<string>,
  timeoutMs: number,
): TE.TaskEither<JournalUnavailable, boolean> =>
  journalCall('replica liveness', timeoutMs, async () => {
    // pg_locks shows a bigint advisory key as its two 32-bit halves, objsubid 1.
    const halves = keys.map((key) => BigInt.asUintN(64, BigInt(key)))
    const result = await knex.raw<{ rows: Array<{ alive: boolean }> }>(
      `select exists (
        select 1 from pg_locks
        where locktype = 'advisory' and granted and objsubid = 1
          and database = (select oid from pg_database where datname = current_database())
          and (classid, objid) in (${halves.map(() => '(?::oid, ?::oid)').join(', ')})
      ) as alive`,
      halves.flatMap((key) => [(key >> 32n).toString(), (key & 0xffffffffn).toString()]),
    )
    return result.rows[0]?.alive === true
  })

export interface ReplicaLivenessOptions {
  readonly timeoutMs?: number
  /**
   * The chain of the network the previous release served: there, an owner holding only the previous release's
   * address-only lock (a replica of that release) is alive too. This release only.
   */
  readonly legacyChainId?: string
}

/**
 * Whether a replica holds the advisory lock of a row's owner on `chainId` in this database: recovery may take over the
 * rows of an owner whose lock is gone (docs/ARCHITECTURE.md §5.5).
 */
export const makeReplicaLiveness =
  (knex: Knex, options: ReplicaLivenessOptions = {}) =>
  (chainId: string): ReplicaLiveness => ({
    isAlive: (owner: Address) =>
      anyHeld(
        knex,
        chainId === options.legacyChainId
          ? [replicaLockKey(chainId, owner), legacyReplicaLockKey(owner)]
          : [replicaLockKey(chainId, owner)],
        options.timeoutMs ?? defaultJournalTimeoutMs,
      ),
  })

/** Whether that one lock is held (by any session). */
export const isReplicaAlive = (knex: Knex, owner: LockOwner): TE.TaskEither<JournalUnavailable, boolean> =>
  anyHeld(knex, [lockKeyOf(owner)], defaultJournalTimeoutMs)
