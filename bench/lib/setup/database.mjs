// The database: the one at DATABASE_URL, or an embedded Postgres of its own in a fresh temporary directory, stopped
// and removed at the end.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence/testing'
import pg from 'pg'
import { say } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'

/** { serviceUrl (the service's database), limitUrl (where the insert limit is measured), postgresPid?, own } */
export const setUpDatabase = async () => {
  if (process.env.DATABASE_URL)
    return { serviceUrl: process.env.DATABASE_URL, limitUrl: process.env.DATABASE_URL, own: false }
  say('starting embedded Postgres…')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'x402-bench-pg-'))
  chmodSync(dataDir, 0o755) // as root, Postgres runs as the postgres user, which must reach it
  onCleanUp(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'data'), handleSignals: false })
  onCleanUp(() => server.stop())
  const admin = new pg.Client({ connectionString: server.connectionString })
  await admin.connect()
  await admin.query('create database x402_bench')
  await admin.end()
  const url = new URL(server.connectionString)
  url.pathname = '/x402_bench'
  return { serviceUrl: url.toString(), limitUrl: server.connectionString, postgresPid: server.pid, own: true }
}
