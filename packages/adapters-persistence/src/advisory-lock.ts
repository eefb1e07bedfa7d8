import { createHash } from 'node:crypto'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Knex } from 'knex'
import pg from 'pg'
import type { Address, JournalUnavailable } from '@x402-facilitator/domain'
import { defaultJournalTimeoutMs, journalCall } from './with-timeout.js'

/** A signed 64-bit key (decimal string) for `pg_*advisory_lock(bigint)`, namespaced so other apps do not collide. */
export const advisoryLockKey = (name: string): string =>
  createHash('sha256').update(name).digest().readBigInt64BE(0).toString()

const lowerCase = (address: Address): Address => `0x${address.slice(2).toLowerCase()}`

export const replicaLockKey = (address: Address): string => advisoryLockKey(`x402-facilitator/replica/${lowerCase(address)}`)

export class ReplicaLockHeld extends Error {
  constructor(
    readonly address: Address,
    readonly key: string,
  ) {
    super(
      `another replica already holds the Postgres advisory lock of facilitator ${address} (key ${key}): ` +
        'refusing to start. Each replica needs its own FACILITATOR_PRIVATE_KEY.',
    )
    this.name = 'ReplicaLockHeld'
  }
}

export interface ReplicaLock {
  readonly address: Address
  readonly key: string
  /** Unlocks and closes (or gives back) the dedicated connection; idempotent. */
  readonly release: () => Promise<void>
}

export interface ReplicaLockOptions {
  /** Called once if the dedicated connection dies: the lock is gone with it and another replica may take over. */
  readonly onLost?: (reason: string) => void
  readonly connectTimeoutMs?: number
}

interface Session {
  readonly client: pg.Client
  readonly close: () => Promise<void>
}

const openSession = async (target: string | Knex, connectTimeoutMs: number): Promise<Session> => {
  if (typeof target === 'string') {
    const client = new pg.Client({
      connectionString: target,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      application_name: 'x402-facilitator replica lock',
    })
    // Without a listener, an error on this idle connection would crash the process.
    client.on('error', () => undefined)
    await client.connect()
    return { client, close: () => client.end().catch(() => undefined) }
  }
  // Taken out of the pool for the lifetime of the process: the lock belongs to this session.
  const client = (await target.client.acquireConnection()) as pg.Client
  return {
    client,
    close: async () => {
      await target.client.releaseConnection(client)
    },
  }
}

/**
 * Takes this replica's advisory lock on a dedicated connection held until `release()` (docs/ARCHITECTURE.md §5):
 * a second replica signing with the same key is refused with `ReplicaLockHeld`.
 */
export const acquireReplicaLock = async (
  target: string | Knex,
  address: Address,
  options: ReplicaLockOptions = {},
): Promise<ReplicaLock> => {
  const key = replicaLockKey(address)
  const session = await openSession(target, options.connectTimeoutMs ?? defaultJournalTimeoutMs)
  let released = false
  let lost = false
  const onGone = (reason: string) => {
    if (released || lost) return
    lost = true
    options.onLost?.(reason)
  }
  try {
    const result = await session.client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key])
    if (result.rows[0]?.ok !== true) throw new ReplicaLockHeld(lowerCase(address), key)
  } catch (error) {
    released = true
    await session.close()
    throw error
  }
  session.client.on('error', (error) => onGone(error.message))
  session.client.on('end', () => onGone('connection closed'))
  return {
    address: lowerCase(address),
    key,
    release: async () => {
      if (released) return
      released = true
      if (!lost) await session.client.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined)
      await session.close()
    },
  }
}

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
