import type { Knex } from 'knex'
import pg from 'pg'
import { createKnex, silentKnexLog } from '../database/create-knex.js'
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../dev/embedded-postgres.js'
import { findFreePort } from '../dev/embedded-postgres-host.js'
import { ensureJournalIndexes } from '../journal/journal-indexes.js'
import { migrateToLatest } from '../database/migrate-to-latest.js'
import { pickServer, temporaryDataDir, type TestPostgres } from './test-postgres-server.js'

export { dockerAnswers, type TestPostgres, type TestPostgresSource } from './test-postgres-server.js'
export { engineJson } from './docker-engine.js'
export { testPostgresImage } from './test-postgres-container.js'

export interface TestDatabase {
  readonly name: string
  readonly connectionString: string
  /** Made by `createKnex`, destroyed by `drop()`. */
  readonly knex: Knex
  readonly drop: () => Promise<void>
}

export interface TestDatabaseOptions {
  /** Apply the migrations [true]. */
  readonly migrate?: boolean
  readonly timeoutMs?: number
}

/** An embedded server of the test's own, which it may stop and start again (outage tests). */
export interface DedicatedPostgres {
  readonly connectionString: string
  readonly port: number
  /** The postmaster's process id while it runs. */
  readonly pid: () => number | undefined
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  /** Stops the server and removes its data. */
  readonly dispose: () => Promise<void>
}

const withDatabase = (connectionString: string, database: string): string => {
  const url = new URL(connectionString)
  url.pathname = `/${database}`
  return url.toString()
}

let shared: Promise<TestPostgres> | undefined
const liveDatabases = new Set<TestDatabase>()
const dedicatedServers = new Set<DedicatedPostgres>()

/** The Postgres of this test process, started on first use and shared by every test file. */
export const testPostgres = (): Promise<TestPostgres> => {
  shared ??= pickServer().catch((error: unknown) => {
    shared = undefined
    throw error
  })
  return shared
}

const admin = async <A>(connectionString: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}

let databaseCounter = 0
const freshName = (kind: string) =>
  `x402_${kind}_${process.pid}_${++databaseCounter}_${Math.random().toString(36).slice(2, 8)}`

/**
 * The database this process's migrated ones are copies of (`create database … template`), migrated once: a copy took
 * 0.37 s where a database migrated took 0.65 s (2026-11-29, embedded Postgres, the app's tests start 49 of them). No
 * connection stays open on it (a copy needs none); dropped with the rest.
 */
let migratedTemplate: Promise<string> | undefined
let dropTemplate: (() => Promise<unknown>) | undefined
const templateOf = (server: TestPostgres): Promise<string> => {
  migratedTemplate ??= (async () => {
    const name = freshName('template')
    await admin(server.adminConnectionString, (client) =>
      client.query(`create database ${client.escapeIdentifier(name)}`),
    )
    const connectionString = withDatabase(server.adminConnectionString, name)
    const knex = createKnex({ connectionString, timeoutMs: 10_000, log: silentKnexLog })
    try {
      await migrateToLatest(knex)
      await ensureJournalIndexes(connectionString)
    } finally {
      await knex.destroy()
    }
    dropTemplate = () =>
      admin(server.adminConnectionString, (client) =>
        client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`),
      )
    return name
  })().catch((error: unknown) => {
    migratedTemplate = undefined
    throw error
  })
  return migratedTemplate
}

/** A fresh database with the migrations applied, for one test file; `drop()` it in `after`. */
export const createTestDatabase = async (options: TestDatabaseOptions = {}): Promise<TestDatabase> => {
  const server = await testPostgres()
  const name = freshName('test')
  const template = (options.migrate ?? true) ? await templateOf(server) : undefined
  await admin(server.adminConnectionString, (client) =>
    client.query(
      `create database ${client.escapeIdentifier(name)}` +
        (template === undefined ? '' : ` template ${client.escapeIdentifier(template)}`),
    ),
  )
  const connectionString = withDatabase(server.adminConnectionString, name)
  const knex = createKnex({ connectionString, timeoutMs: options.timeoutMs ?? 10_000, log: silentKnexLog })
  let dropping: Promise<void> | undefined
  const database: TestDatabase = {
    name,
    connectionString,
    knex,
    drop: () =>
      (dropping ??= (async () => {
        liveDatabases.delete(database)
        await knex.destroy()
        await admin(server.adminConnectionString, (client) =>
          client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`),
        )
      })()),
  }
  liveDatabases.add(database)
  return database
}

export const startDedicatedPostgres = async (): Promise<DedicatedPostgres> => {
  const { dataDir, remove } = await temporaryDataDir()
  const port = await findFreePort()
  let server: EmbeddedPostgres | undefined = await startEmbeddedPostgres({ dataDir, port })
  const dedicated: DedicatedPostgres = {
    connectionString: server.connectionString,
    port,
    pid: () => server?.pid,
    stop: async () => {
      await server?.stop()
      server = undefined
    },
    start: async () => {
      server ??= await startEmbeddedPostgres({ dataDir, port })
    },
    dispose: async () => {
      dedicatedServers.delete(dedicated)
      await server?.stop()
      server = undefined
      await remove()
    },
  }
  dedicatedServers.add(dedicated)
  return dedicated
}

/** Drops what is left and stops every server this fixture started; registered as a root `after` under mocha. */
export const stopTestPostgres = async (): Promise<void> => {
  await Promise.allSettled([...liveDatabases].map((database) => database.drop()))
  await dropTemplate?.().catch(() => undefined)
  dropTemplate = undefined
  migratedTemplate = undefined
  await Promise.allSettled([...dedicatedServers].map((server) => server.dispose()))
  const server = shared
  shared = undefined
  if (server !== undefined) await (await server.catch(() => undefined))?.stop()
}

// Imported from a spec file, this module is evaluated while mocha loads files at the root suite, so the hook
// runs once, after every file: one server per test run, and none left behind.
if (typeof after === 'function') after('stop the test Postgres', stopTestPostgres)
