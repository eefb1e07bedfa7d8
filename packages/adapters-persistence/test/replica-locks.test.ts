import type { Address } from '@x402-facilitator/domain'
import { right, uniqueAddress } from '@x402-facilitator/domain/journal-contract'
import { expect } from 'chai'
import { acquireReplicaLock, ReplicaLockHeld } from '../src/replicas/advisory-lock.js'
import { makePostgresStore } from '../src/postgres-store.js'
import { isReplicaAlive } from '../src/replicas/replica-liveness.js'
import type { StoreNetwork } from '../src/replicas/replica-locks.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { rejection } from './rejection.js'

const chainA = 'eip155:84532'
const chainB = 'eip155:11155111'
const networkA = (accounts: ReadonlyArray<Address>): StoreNetwork => ({
  name: 'base-sepolia',
  chainId: chainA,
  accounts,
})
const networkB = (accounts: ReadonlyArray<Address>): StoreNetwork => ({ name: 'sepolia', chainId: chainB, accounts })

describe('replica locks keyed by chain and account', () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(() => db.drop())
  const storeOf = (networks: ReadonlyArray<StoreNetwork>) =>
    makePostgresStore({ databaseUrl: db.connectionString, timeoutMs: 10_000, networks })

  it('one replica holds one key on two chains; a second replica is refused on each', async () => {
    const key = uniqueAddress()
    const replica = await storeOf([networkA([key]), networkB([key, key])])
    expect(replica.replicaLocks.map((lock) => [lock.chainId, lock.account, lock.held()])).to.deep.equal([
      [chainA, key, true],
      [chainB, key, true],
    ])
    for (const networks of [[networkA([key])], [networkB([key])]]) {
      const refused = await rejection(storeOf(networks))
      expect(refused).to.be.instanceOf(ReplicaLockHeld)
      expect(refused.message).to.include(`${key} on ${networks[0]!.chainId}`)
    }
    expect(await right(replica.livenessFor(chainA).isAlive(key))).to.equal(true)
    expect(await right(replica.livenessFor(chainB).isAlive(key))).to.equal(true)
    expect(await right(replica.livenessFor('eip155:1').isAlive(key))).to.equal(false)
    await replica.stop()
    expect(await right(isReplicaAlive(db.knex, { chainId: chainB, address: key }))).to.equal(false)
    expect(await right(isReplicaAlive(db.knex, { address: key }))).to.equal(false)
  })

  it("a previous release's replica (its address lock) and this one exclude each other, on the first network", async () => {
    const key = uniqueAddress()
    const previous = await acquireReplicaLock(db.connectionString, { address: key })
    const refused = await rejection(storeOf([networkA([key])]))
    expect(refused).to.be.instanceOf(ReplicaLockHeld)
    expect(refused.message).to.include("the previous release's lock")
    // Its owner is alive on the chain the previous release served, the first network's, and there only.
    const other = uniqueAddress()
    const replica = await storeOf([networkA([other]), networkB([other])])
    expect(await right(replica.livenessFor(chainA).isAlive(key))).to.equal(true)
    expect(await right(replica.livenessFor(chainB).isAlive(key))).to.equal(false)
    await previous.release()
    expect(await right(replica.livenessFor(chainA).isAlive(key))).to.equal(false)
    // And this replica holds the address lock of its first network's keys: a previous release's replica is refused.
    expect(await rejection(acquireReplicaLock(db.connectionString, { address: other }))).to.be.instanceOf(
      ReplicaLockHeld,
    )
    await replica.stop()
  })

  it('the pair is one hold: lost when its address lock goes, regained once both are held', async () => {
    const key = uniqueAddress()
    const events: string[] = []
    let regained = () => {}
    const regainedOnce = new Promise<void>((resolve) => (regained = resolve))
    const replica = await makePostgresStore({
      databaseUrl: db.connectionString,
      networks: [networkA([key])],
      replicaLockEvents: {
        onLost: (chainId, account) => events.push(`lost ${chainId} ${account}`),
        onRegained: (chainId, account) => {
          events.push(`regained ${chainId} ${account}`)
          regained()
        },
      },
    })
    const [legacy] = replica.replicaLocks
    // The address lock's session alone: the most recent lock connection opened.
    await db.knex.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = 'x402-facilitator replica lock' and datname = current_database()
       order by backend_start desc limit 1`,
    )
    await regainedOnce
    expect(events).to.deep.equal([`lost ${chainA} ${key}`, `regained ${chainA} ${key}`])
    expect(legacy!.held()).to.equal(true)
    await replica.stop()
  })
})
