import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Knex } from 'knex'
import type { Address, JournalUnavailable } from '@x402-facilitator/domain'
import { replicaLockKey } from './advisory-lock.js'
import { defaultJournalTimeoutMs, journalCall } from './journal-statements.js'

/**
 * Whether a replica holds the advisory lock of `address` in this database: recovery may take over the
 * rows of an owner whose lock is gone (docs/ARCHITECTURE.md §5.5).
 */
export const makeReplicaLiveness =
  (knex: Knex, options: { readonly timeoutMs?: number } = {}) =>
  (address: Address): TE.TaskEither<JournalUnavailable, boolean> => {
    const key = BigInt.asUintN(64, BigInt(replicaLockKey(address)))
    return journalCall('replica liveness', options.timeoutMs ?? defaultJournalTimeoutMs, async () => {
      // pg_locks shows a bigint advisory key as its two 32-bit halves, objsubid 1.
      const result = await knex.raw<{ rows: Array<{ alive: boolean }> }>(
        `select exists (
          select 1 from pg_locks
          where locktype = 'advisory' and granted and objsubid = 1
            and database = (select oid from pg_database where datname = current_database())
            and classid = ?::oid and objid = ?::oid
        ) as alive`,
        [(key >> 32n).toString(), (key & 0xffffffffn).toString()],
      )
      return result.rows[0]?.alive === true
    })
  }

export const isReplicaAlive = (knex: Knex, address: Address): TE.TaskEither<JournalUnavailable, boolean> =>
  makeReplicaLiveness(knex)(address)
