import path from 'node:path'
import { createKnex } from '../database/create-knex.js'
import { startEmbeddedPostgres } from './embedded-postgres.js'

const DEV_DATABASE = 'facilitator_dev'

/**
 * Dev mode's journal lives in the embedded server, in a database made anew at each start: the local chain is new
 * too, so rows of an earlier run point at transactions that no longer exist anywhere.
 */
const freshDevDatabase = async (serverUrl: string): Promise<string> => {
  const admin = createKnex({ connectionString: serverUrl, poolMax: 1 })
  try {
    await admin.raw(`drop database if exists ${DEV_DATABASE} with (force)`)
    await admin.raw(`create database ${DEV_DATABASE}`)
  } finally {
    await admin.destroy()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${DEV_DATABASE}`
  return url.toString()
}

export interface DevDatabaseOptions {
  /** The embedded server's data go to `dataDirectory`/postgres. */
  readonly dataDirectory: string
  /** A new database in it (with dev mode's new chain), not the server's own. */
  readonly fresh: boolean
  readonly progress?: (line: string) => void
}

/**
 * No DATABASE_URL: embedded Postgres in DATA_DIR/postgres, its signals left to the app. `stop` is known as soon as
 * the server runs, so that a failure after it still stops it.
 */
export const startDevDatabase = async (
  { dataDirectory, fresh, progress = () => {} }: DevDatabaseOptions,
  onStarted: (stop: () => Promise<void>) => void,
): Promise<string> => {
  const dataDir = path.resolve(dataDirectory, 'postgres')
  progress(`dev mode: starting embedded Postgres (data in ${dataDir})…`)
  const embedded = await startEmbeddedPostgres({ dataDir, handleSignals: false })
  onStarted(embedded.stop)
  return fresh ? await freshDevDatabase(embedded.connectionString) : embedded.connectionString
}
