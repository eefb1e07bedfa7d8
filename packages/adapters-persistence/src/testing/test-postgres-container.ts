import type { GenericContainer } from 'testcontainers'
import { findFreePort } from '../dev/embedded-postgres-host.js'
import { engineHasBridge, removeContainerSync } from './docker-engine.js'

export const defaultTestPostgresImage = 'postgres:17-alpine'

/** `TEST_POSTGRES_IMAGE`, else the official image; any image with the official image's environment contract. */
export const testPostgresImage = (): string => {
  const image = process.env.TEST_POSTGRES_IMAGE
  return image !== undefined && image !== '' ? image : defaultTestPostgresImage
}

const credentials = { POSTGRES_USER: 'test', POSTGRES_PASSWORD: 'test', POSTGRES_DB: 'test' } as const

/** A started container: its image, the network it took, the superuser's URL, and its removal. */
export interface PostgresContainer {
  readonly image: string
  readonly network: 'bridge' | 'host'
  readonly adminConnectionString: string
  readonly stop: () => Promise<unknown>
}

type StartedPostgres = PostgresContainer & { readonly id: string }

/**
 * Ready when `pg_isready` answers on `host` (the image's init runs a first server on its socket only), asked every
 * 100 ms while the container starts and never again. Not Docker's health check, which the engine runs for the
 * container's whole life: at testcontainers' 250 ms interval one test Postgres kept 28 % of this machine's two cores
 * busy (dockerd, containerd, runc; `.ci/run`'s app suite took 9 minutes, 6 without).
 */
const readyWhenAnswering = async (host: string) => {
  const { Wait } = await import('testcontainers')
  return Wait.forSuccessfulCommand(`PGPASSWORD=test pg_isready --host ${host} --username test --dbname test`)
}

/**
 * Docker's "no health check" (`Test: ["NONE"]`, which testcontainers passes on as it is but does not type), set so
 * that testcontainers' Postgres module adds none of its own.
 */
const NO_HEALTH_CHECK = { test: ['NONE'] } as unknown as Parameters<GenericContainer['withHealthCheck']>[0]

/** On an engine with a bridge: testcontainers' own Postgres module, its port published by the engine. */
const startPublished = async (image: string): Promise<StartedPostgres> => {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const { Wait } = await import('testcontainers')
  const container = await new PostgreSqlContainer(image)
    .withHealthCheck(NO_HEALTH_CHECK)
    .withWaitStrategy(Wait.forAll([await readyWhenAnswering('localhost'), Wait.forListeningPorts()]))
    .start()
  const adminConnectionString = container.getConnectionUri()
  return { id: container.getId(), image, network: 'bridge', adminConnectionString, stop: () => container.stop() }
}

/**
 * On an engine without a bridge: the host network, a free loopback port (PGPORT, which the server and pg_isready
 * both read), listening on 127.0.0.1 only; ready when pg_isready answers on that port.
 */
const startOnHostNetwork = async (image: string): Promise<StartedPostgres> => {
  // Read by testcontainers once, when it first connects. Without a bridge it cannot find the engine's host (it looks
  // for the bridge's gateway when it runs inside a container) nor run its reaper (a bridge container): the host is
  // this machine's loopback, and the fixture's stop removes the container.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1'
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true'
  const { GenericContainer } = await import('testcontainers')
  const port = await findFreePort()
  const container = await new GenericContainer(image)
    .withNetworkMode('host')
    .withEnvironment({ ...credentials, PGPORT: String(port) })
    .withCommand(['postgres', '-c', 'listen_addresses=127.0.0.1'])
    .withWaitStrategy(await readyWhenAnswering('127.0.0.1'))
    .withStartupTimeout(120_000)
    .start()
  const adminConnectionString = `postgres://test:test@127.0.0.1:${port}/test`
  return { id: container.getId(), image, network: 'host', adminConnectionString, stop: () => container.stop() }
}

/**
 * Removed at this process's exit if `stop` was not called: with mocha's parallel workers, the fixture's root `after` hook
 * runs after a worker's first file only (the module is evaluated once per worker), and the reaper may be off.
 */
const removedAtExit = (container: StartedPostgres): PostgresContainer => {
  const atExit = () => void removeContainerSync(container.id)
  process.once('exit', atExit)
  return {
    ...container,
    stop: async () => {
      process.removeListener('exit', atExit)
      return container.stop()
    },
  }
}

/** A Postgres container for this test process; its `stop` removes it, as does the process's exit. */
export const startTestPostgresContainer = async (): Promise<PostgresContainer> => {
  const image = testPostgresImage()
  return removedAtExit(await ((await engineHasBridge()) ? startPublished(image) : startOnHostNetwork(image)))
}
