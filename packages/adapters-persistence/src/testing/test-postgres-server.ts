import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { dockerAnswers } from './docker-engine.js'
import { startEmbeddedPostgres } from '../dev/embedded-postgres.js'
import { startTestPostgresContainer } from './test-postgres-container.js'

export { dockerAnswers } from './docker-engine.js'

export type TestPostgresSource = 'TEST_DATABASE_URL' | 'testcontainers' | 'embedded-postgres'

export interface TestPostgres {
  readonly source: TestPostgresSource
  /** To a database the fixture may `create database` from. */
  readonly adminConnectionString: string
  readonly stop: () => Promise<void>
}

export const log = (message: string) => console.log(`[test-database] ${message}`)

const redacted = (connectionString: string): string => {
  const url = new URL(connectionString)
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`
}

export const temporaryDataDir = async (): Promise<{ dataDir: string; remove: () => Promise<void> }> => {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'x402-postgres-'))
  // mkdtemp makes it 0700; as root the server runs as `postgres`, which must enter it.
  await chmod(parent, 0o755)
  return { dataDir: path.join(parent, 'data'), remove: () => rm(parent, { recursive: true, force: true }) }
}

const startEmbedded = async (): Promise<TestPostgres> => {
  const { dataDir, remove } = await temporaryDataDir()
  const server = await startEmbeddedPostgres({ dataDir }).catch(async (error: unknown) => {
    await remove()
    throw error
  })
  log(`using embedded-postgres on 127.0.0.1:${server.port} (pid ${server.pid}, data in ${dataDir})`)
  return {
    source: 'embedded-postgres',
    adminConnectionString: server.connectionString,
    stop: async () => {
      await server.stop()
      await remove()
    },
  }
}

const startContainer = async (): Promise<TestPostgres> => {
  const container = await startTestPostgresContainer()
  log(
    `using testcontainers ${container.image} at ${redacted(container.adminConnectionString)} (${container.network} network)`,
  )
  return {
    source: 'testcontainers',
    adminConnectionString: container.adminConnectionString,
    stop: async () => void (await container.stop()),
  }
}

/**
 * The test Postgres (docs/ARCHITECTURE.md §7): `TEST_DATABASE_URL`, else testcontainers (`TEST_POSTGRES_IMAGE`)
 * when a Docker engine answers, else embedded Postgres.
 */
export const pickServer = async (): Promise<TestPostgres> => {
  const url = process.env.TEST_DATABASE_URL
  if (url !== undefined && url !== '') {
    log(`using TEST_DATABASE_URL (${redacted(url)})`)
    return { source: 'TEST_DATABASE_URL', adminConnectionString: url, stop: async () => undefined }
  }
  if (await dockerAnswers()) return startContainer()
  return startEmbedded()
}
