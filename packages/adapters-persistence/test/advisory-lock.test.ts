import type { Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import {
  acquireReplicaLock,
  legacyReplicaLockKey,
  ReplicaLockHeld,
  replicaLockKey,
} from '../src/replicas/advisory-lock.js'
import { isReplicaAlive } from '../src/replicas/replica-liveness.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { facilitator, otherFacilitator, right, uniqueAddress } from '@x402-facilitator/domain/journal-contract'
import { rejection } from './rejection.js'

const terminateLockSessions =
  `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'x402-facilitator replica ` +
  `lock' and datname = current_database()`

const chain = 'eip155:84532'
const on = (address: Address) => ({ chainId: chain, address })

describe('replica advisory lock', () => {
  let db: TestDatabase

  before(async () => {
    db = await createTestDatabase({ migrate: false })
  })
  after(() => db.drop())

  it('derives a stable signed 64-bit key per chain and address, whatever the case', () => {
    const key = replicaLockKey(chain, facilitator)
    expect(BigInt(key) >= -(2n ** 63n) && BigInt(key) < 2n ** 63n).to.equal(true)
    expect(replicaLockKey(chain, `0x${facilitator.slice(2).toUpperCase()}`)).to.equal(key)
    expect(replicaLockKey(chain, otherFacilitator)).to.not.equal(key)
    expect(replicaLockKey('eip155:1', facilitator)).to.not.equal(key)
    expect(legacyReplicaLockKey(facilitator)).to.not.equal(key)
  })

  it('refuses a second replica with the same address, with a clear message; released → can acquire', async () => {
    const first = await acquireReplicaLock(db.connectionString, on(facilitator))
    const refused = await rejection(acquireReplicaLock(db.connectionString, on(facilitator)))
    expect(refused).to.be.instanceOf(ReplicaLockHeld)
    expect(refused.message).to.include(facilitator).and.include('refusing to start')
    // Through a knex pool too.
    expect(await rejection(acquireReplicaLock(db.knex, on(facilitator)))).to.be.instanceOf(ReplicaLockHeld)
    const other = await acquireReplicaLock(db.connectionString, on(otherFacilitator))
    await first.release()
    await first.release()
    const again = await acquireReplicaLock(db.knex, on(facilitator))
    await again.release()
    await other.release()
  })

  it('tells whether an owner is alive from pg_locks', async () => {
    const address = uniqueAddress()
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(false)
    const lock = await acquireReplicaLock(db.connectionString, on(address))
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(true)
    expect(await right(isReplicaAlive(db.knex, on(uniqueAddress())))).to.equal(false)
    await lock.release()
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(false)
  })

  it('reports a lost lock when its connection dies and takes it back in the background', async () => {
    const address = uniqueAddress()
    const events: string[] = []
    const lock = await acquireReplicaLock(db.connectionString, on(address), {
      onLost: (reason) => events.push(`lost: ${reason}`),
      onRegained: () => events.push('regained'),
      retryDelayMs: 10,
    })
    expect(lock.held()).to.equal(true)
    await db.knex.raw(terminateLockSessions)
    await waitUntil(async () => (events.includes('regained') ? true : undefined))
    expect(events[0]).to.match(/^lost: /)
    expect(lock.held()).to.equal(true)
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(true)
    await lock.release()
  })

  it('keeps refusing while another session holds the lost lock, saying so, and takes it once that one lets go', async () => {
    const address = uniqueAddress()
    const failures: Array<{ reason: string; heldElsewhere: boolean }> = []
    let regained = false
    const lock = await acquireReplicaLock(db.connectionString, on(address), {
      onRetryFailed: (reason, heldElsewhere) => failures.push({ reason, heldElsewhere }),
      onRegained: () => (regained = true),
      retryDelayMs: 10,
      maxRetryDelayMs: 40,
    })
    const other = await db.knex.client.acquireConnection()
    try {
      // Ends our session and queues for its lock in one statement: the waiting session is granted it first.
      await db.knex
        .raw(
          `select pg_terminate_backend(l.pid), pg_advisory_lock(?::bigint) from pg_locks l
           where l.locktype = 'advisory' and l.pid <> pg_backend_pid() and l.pid in (select pid from pg_stat_activity where application_name = 'x402-facilitator replica lock' and datname = current_database())`,
          [lock.key],
        )
        .connection(other)
      await waitUntil(async () => (failures.length >= 3 ? true : undefined))
      expect(lock.held()).to.equal(false)
      expect(regained).to.equal(false)
      expect(failures[0]).to.deep.include({ heldElsewhere: true })
      expect(failures[0]?.reason).to.include('another session holds it')
      await db.knex.raw('select pg_advisory_unlock(?::bigint)', [lock.key]).connection(other)
    } finally {
      await db.knex.client.releaseConnection(other)
    }
    await waitUntil(async () => (regained ? true : undefined))
    expect(lock.held()).to.equal(true)
    await lock.release()
  })

  it('after a loss the owner counts as gone; released, it is not taken back', async () => {
    const address = uniqueAddress()
    let lost = false
    const lock = await acquireReplicaLock(db.connectionString, on(address), {
      onLost: () => (lost = true),
      retryDelayMs: 60_000,
    })
    await db.knex.raw(terminateLockSessions)
    await waitUntil(async () => (lost ? true : undefined))
    expect(lock.held()).to.equal(false)
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(false)
    await lock.release()
    expect(lock.held()).to.equal(false)
    expect(await right(isReplicaAlive(db.knex, on(address)))).to.equal(false)
  })
})

/** Polls `probe` every 20 ms until it answers, bounded by mocha's timeout. */
const waitUntil = async <A>(probe: () => Promise<A | undefined>): Promise<A> => {
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
