import type { Address, Store } from '@x402-facilitator/domain'
import {
  newSettlement,
  right,
  settlementJournalContract,
  SVM_SAMPLE_NETWORK,
  svmSettlement,
  uniqueAddress,
} from '@x402-facilitator/domain/journal-contract'
import { expect } from 'chai'
import { ReplicaLockHeld } from '../src/replicas/advisory-lock.js'
import { makePostgresStore } from '../src/postgres-store.js'
import { journalIndexes } from '../src/journal/journal-indexes.js'
import { isReplicaAlive } from '../src/replicas/replica-liveness.js'
import { createTestDatabase, type TestDatabase } from '../src/testing/test-database.js'
import { rejection } from './rejection.js'

const chainId = 'eip155:84532'
// Named as the samples' rows are (the app's name when NETWORK_ID is unset).
const networkOf = (accounts: ReadonlyArray<Address>) => [{ name: chainId, chainId, accounts }]
const on = (address: Address) => ({ chainId, address })

describe('makePostgresStore', () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase({ migrate: false })
  })
  after(() => db.drop())

  const storeOf = (accounts: ReadonlyArray<Address>, log: Parameters<typeof makePostgresStore>[0]['log'] = {}) =>
    makePostgresStore({ databaseUrl: db.connectionString, timeoutMs: 10_000, networks: networkOf(accounts), log })

  it('builds journal, liveness, locks, readiness, metrics from a URL, migrated; stop releases each lock', async () => {
    const [first, second] = [uniqueAddress(), uniqueAddress()]
    const lines: string[] = []
    const store = await makePostgresStore({
      databaseUrl: db.connectionString,
      networks: networkOf([first, second]),
      progress: (line) => lines.push(line),
    })
    expect(lines).to.deep.equal([
      'applying database migrations…',
      ...journalIndexes.map((index) => `building index ${index.name} concurrently…`),
    ])
    expect(await store.readiness.pendingMigrations()).to.deep.equal([])
    expect(store.replicaLocks.map((lock) => [lock.chainId, lock.account, lock.held()])).to.deep.equal([
      [chainId, first, true],
      [chainId, second, true],
    ])
    expect(await right(store.livenessFor(chainId).isAlive(second))).to.equal(true)
    expect(await right(store.livenessFor(chainId).isAlive(uniqueAddress()))).to.equal(false)

    const before = await store.metrics.unfinishedSettlements()
    const otherBefore = store.metrics.otherStatements()
    expect(store.metrics.journalStatements()).to.equal(0)
    await right(store.journal.claim(newSettlement()))
    expect(store.metrics.journalStatements()).to.be.greaterThan(0)
    expect(await store.metrics.unfinishedSettlements()).to.deep.equal({ ...before, claimed: before.claimed + 1 })
    expect(store.metrics.otherStatements()).to.be.greaterThan(otherBefore)

    await store.stop()
    await store.stop()
    expect(await right(isReplicaAlive(db.knex, on(first)))).to.equal(false)
    expect(await right(isReplicaAlive(db.knex, on(second)))).to.equal(false)
    expect(await right(isReplicaAlive(db.knex, { address: first }))).to.equal(false)
  })

  it('refuses to start while another replica holds one of its locks, releasing the locks it took first', async () => {
    const [taken, free] = [uniqueAddress(), uniqueAddress()]
    const holder = await storeOf([taken])
    const stopFailures: string[] = []
    const refused = await rejection(storeOf([free, taken], { stopFailed: (part) => stopFailures.push(part) }))
    expect(refused).to.be.instanceOf(ReplicaLockHeld)
    expect(refused.message).to.include(taken.toLowerCase())
    expect(await right(isReplicaAlive(db.knex, on(free)))).to.equal(false)
    expect(stopFailures).to.deep.equal([])
    await holder.stop()
  })

  it('tells each lock loss and regain to the events it was given, naming the account', async () => {
    const account = uniqueAddress()
    const events: string[] = []
    let regained = () => {}
    const regainedOnce = new Promise<void>((resolve) => (regained = resolve))
    const store = await makePostgresStore({
      databaseUrl: db.connectionString,
      networks: networkOf([account]),
      replicaLockEvents: {
        onLost: (chain, lost) => events.push(`lost ${chain} ${lost}`),
        onRegained: (chain, again) => {
          events.push(`regained ${chain} ${again}`)
          regained()
        },
      },
    })
    await db.knex.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = 'x402-facilitator replica lock' and datname = current_database()`,
    )
    await regainedOnce
    expect(events).to.deep.equal([`lost ${chainId} ${account}`, `regained ${chainId} ${account}`])
    expect(store.replicaLocks[0]!.held()).to.equal(true)
    await store.stop()
  })

  describe('its journal', () => {
    let store: Store
    before(async () => {
      store = await storeOf([])
    })
    after(() => store.stop())

    settlementJournalContract('the SettlementJournal contract, through makePostgresStore', async () => {
      await db.knex.raw('truncate settlement_attempts, settlements')
      return {
        journal: store.journal,
        svmJournal: store.journalFor({ chainId: SVM_SAMPLE_NETWORK, asset: svmSettlement().asset }),
        setUpdatedAt: async (id, at) => {
          await db.knex('settlements').where({ id }).update({ updated_at: at })
        },
      }
    })
  })
})
