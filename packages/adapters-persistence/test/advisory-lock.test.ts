import { expect } from 'chai'
import { acquireReplicaLock, isReplicaAlive, ReplicaLockHeld, replicaLockKey } from '../src/advisory-lock.js'
import { createTestDatabase, type TestDatabase } from '../src/test-database.js'
import { facilitator, otherFacilitator, right, uniqueAddress } from '@x402-facilitator/domain/journal-contract'

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof Error) return error
  }
  throw new Error('expected a rejection with an Error')
}

describe('replica advisory lock', () => {
  let db: TestDatabase

  before(async () => {
    db = await createTestDatabase({ migrate: false })
  })
  after(() => db.drop())

  it('derives a stable signed 64-bit key per address, whatever the case', () => {
    const key = replicaLockKey(facilitator)
    expect(BigInt(key) >= -(2n ** 63n) && BigInt(key) < 2n ** 63n).to.equal(true)
    expect(replicaLockKey(`0x${facilitator.slice(2).toUpperCase()}`)).to.equal(key)
    expect(replicaLockKey(otherFacilitator)).to.not.equal(key)
  })

  it('refuses a second replica with the same address, with a clear message; released → can acquire', async () => {
    const first = await acquireReplicaLock(db.connectionString, facilitator)
    const refused = await rejection(acquireReplicaLock(db.connectionString, facilitator))
    expect(refused).to.be.instanceOf(ReplicaLockHeld)
    expect(refused.message).to.include(facilitator).and.include('refusing to start')
    // Through a knex pool too.
    expect(await rejection(acquireReplicaLock(db.knex, facilitator))).to.be.instanceOf(ReplicaLockHeld)
    const other = await acquireReplicaLock(db.connectionString, otherFacilitator)
    await first.release()
    await first.release()
    const again = await acquireReplicaLock(db.knex, facilitator)
    await again.release()
    await other.release()
  })

  it('tells whether an owner is alive from pg_locks', async () => {
    const address = uniqueAddress()
    expect(await right(isReplicaAlive(db.knex, address))).to.equal(false)
    const lock = await acquireReplicaLock(db.connectionString, address)
    expect(await right(isReplicaAlive(db.knex, address))).to.equal(true)
    expect(await right(isReplicaAlive(db.knex, uniqueAddress()))).to.equal(false)
    await lock.release()
    expect(await right(isReplicaAlive(db.knex, address))).to.equal(false)
  })

  it('reports a lost lock when its connection dies, and the owner then counts as gone', async () => {
    const address = uniqueAddress()
    let lost: string | undefined
    const lock = await acquireReplicaLock(db.connectionString, address, { onLost: (reason) => (lost = reason) })
    await db.knex.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'x402-facilitator replica lock' and datname = current_database()`,
    )
    for (let i = 0; i < 50 && lost === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(lost).to.be.a('string')
    expect(await right(isReplicaAlive(db.knex, address))).to.equal(false)
    await lock.release()
  })
})
