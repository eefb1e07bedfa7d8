import path from 'node:path'
import { createKnex, startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence'
import type { ResourceStack } from './resource-stack.js'

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

/** No DATABASE_URL: embedded Postgres in DATA_DIR/postgres; `fresh` (with dev mode's chain) a new database in it. */
export const startDevDatabase = async (dataDirectory: string, { fresh }: { fresh: boolean }, resources: ResourceStack, progress: (line: string) => void) => {
  const dataDir = path.resolve(dataDirectory, 'postgres')
  progress(`dev mode: starting embedded Postgres (data in ${dataDir})…`)
  const embedded = await startEmbeddedPostgres({ dataDir, handleSignals: false })
  resources.push('embedded Postgres', embedded.stop)
  return fresh ? await freshDevDatabase(embedded.connectionString) : embedded.connectionString
}
