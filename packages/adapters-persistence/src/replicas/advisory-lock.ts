import * as E from 'fp-ts/lib/Either.js'
import type { Knex } from 'knex'
import pg from 'pg'
import type { Address } from '@x402-facilitator/domain'
import { defaultJournalTimeoutMs, journalCall } from '../journal/journal-statements.js'
import { lockKeyOf, lowerCase, ReplicaLockHeld, type LockOwner } from './replica-lock-key.js'

export { advisoryLockKey, legacyReplicaLockKey, ReplicaLockHeld, replicaLockKey } from './replica-lock-key.js'
export type { LockOwner } from './replica-lock-key.js'

export interface ReplicaLock {
  readonly address: Address
  /** Absent: the address-only lock of the previous release. */
  readonly chainId?: string
  readonly key: string
  /** Whether this replica holds the lock now: false from its loss until it is re-acquired. */
  readonly held: () => boolean
  /** Stops re-acquiring, unlocks and closes (or gives back) the dedicated connection; idempotent. */
  readonly release: () => Promise<void>
}

export interface ReplicaLockOptions {
  /**
   * The dedicated connection died (or stopped answering): the lock is gone with it and another replica may take over.
   */
  readonly onLost?: (reason: string) => void
  /**
   * An attempt to take the lock back failed; `heldElsewhere`: another session holds it (maybe a replica with this key).
   */
  readonly onRetryFailed?: (reason: string, heldElsewhere: boolean) => void
  /** The lock is held again, on a new connection. */
  readonly onRegained?: () => void
  /**
   * Wait before the first attempt to take a lost lock back, doubled after each failure up to `maxRetryDelayMs`.
   * [100, 5000 ms]
   */
  readonly retryDelayMs?: number
  readonly maxRetryDelayMs?: number
  /** How often the idle connection is asked `select 1`, so that a silent network loss is noticed too. [5000 ms] */
  readonly heartbeatMs?: number
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
  // Taken out of the pool while the lock lives: the lock belongs to this session.
  const client = (await target.client.acquireConnection()) as pg.Client
  client.on('error', () => undefined)
  return {
    client,
    close: async () => {
      await target.client.releaseConnection(client)
    },
  }
}

/** A session holding the lock, or undefined when another session holds it. */
const tryLock = async (target: string | Knex, key: string, connectTimeoutMs: number): Promise<Session | undefined> => {
  const session = await openSession(target, connectTimeoutMs)
  try {
    const result = await session.client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key])
    if (result.rows[0]?.ok === true) return session
  } catch (error) {
    await session.close()
    throw error
  }
  await session.close()
  return undefined
}

const HELD_ELSEWHERE =
  'another session holds it: another replica signing with this key, or our dead connection that Postgres has ' +
  'not dropped yet'

/**
 * Takes this replica's advisory lock of `owner` on a dedicated connection held until `release()` (docs/ARCHITECTURE.md
 * §5.5): a second replica signing with the same key is refused with `ReplicaLockHeld`. Once lost, the lock is taken
 * back in the background, with a bounded backoff, for as long as it is not released.
 */
export const acquireReplicaLock = async (
  target: string | Knex,
  owner: LockOwner,
  options: ReplicaLockOptions = {},
): Promise<ReplicaLock> => {
  const key = lockKeyOf(owner)
  const connectTimeoutMs = options.connectTimeoutMs ?? defaultJournalTimeoutMs
  const firstDelayMs = options.retryDelayMs ?? 100
  const maxDelayMs = options.maxRetryDelayMs ?? 5_000
  let session = await tryLock(target, key, connectTimeoutMs)
  if (session === undefined) throw new ReplicaLockHeld(owner, key)
  let released = false
  let retry: NodeJS.Timeout | undefined

  const lose = (lost: Session, reason: string) => {
    if (released || session !== lost) return
    session = undefined
    // A connection that stopped answering may still be open: end it, so that Postgres drops the lock it holds.
    void lost.client
      .end()
      .catch(() => undefined)
      .then(lost.close)
    options.onLost?.(reason)
    retry = setTimeout(() => void reacquire(firstDelayMs), firstDelayMs)
    retry.unref()
  }
  const watch = (held: Session) => {
    held.client.on('error', (error) => lose(held, error.message))
    held.client.on('end', () => lose(held, 'connection closed'))
  }
  const reacquire = async (delayMs: number): Promise<void> => {
    retry = undefined
    let failure: { reason: string; heldElsewhere: boolean }
    try {
      const regained = await tryLock(target, key, connectTimeoutMs)
      if (regained !== undefined && released) {
        await regained.client.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined)
        await regained.close()
        return
      }
      if (regained !== undefined) {
        session = regained
        watch(regained)
        options.onRegained?.()
        return
      }
      failure = { reason: HELD_ELSEWHERE, heldElsewhere: true }
    } catch (error) {
      failure = { reason: error instanceof Error ? error.message : String(error), heldElsewhere: false }
    }
    if (released) return
    options.onRetryFailed?.(failure.reason, failure.heldElsewhere)
    const next = Math.min(delayMs * 2, maxDelayMs)
    retry = setTimeout(() => void reacquire(next), next)
    retry.unref()
  }
  const heartbeat = setInterval(() => {
    const current = session
    if (current === undefined) return
    void journalCall('replica lock heartbeat', connectTimeoutMs, () => current.client.query('select 1'))().then(
      (result) => {
        if (E.isLeft(result)) lose(current, result.left.reason)
      },
    )
  }, options.heartbeatMs ?? 5_000)
  heartbeat.unref()
  watch(session)

  return {
    address: lowerCase(owner.address),
    ...(owner.chainId === undefined ? {} : { chainId: owner.chainId }),
    key,
    held: () => session !== undefined,
    release: async () => {
      if (released) return
      released = true
      clearInterval(heartbeat)
      if (retry !== undefined) clearTimeout(retry)
      const current = session
      session = undefined
      if (current === undefined) return
      await current.client.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined)
      await current.close()
    },
  }
}
