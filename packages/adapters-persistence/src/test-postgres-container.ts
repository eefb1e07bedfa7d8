import { findFreePort } from './embedded-postgres-host.js'
import { engineHasBridge } from './docker-engine.js'

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

/** On an engine with a bridge: testcontainers' own Postgres module, its port published by the engine. */
const startPublished = async (image: string): Promise<PostgresContainer> => {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const container = await new PostgreSqlContainer(image).start()
  return { image, network: 'bridge', adminConnectionString: container.getConnectionUri(), stop: () => container.stop() }
}

/**
 * On an engine without a bridge: the host network, a free loopback port (PGPORT, which the server and pg_isready
 * both read), listening on 127.0.0.1 only; ready when pg_isready answers on that port, as PostgreSqlContainer waits.
 */
const startOnHostNetwork = async (image: string): Promise<PostgresContainer> => {
  // Read by testcontainers once, when it first connects. Without a bridge it cannot find the engine's host (it looks
  // for the bridge's gateway when it runs inside a container) nor run its reaper (a bridge container): the host is
  // this machine's loopback, and the fixture's stop removes the container.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1'
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true'
  const { GenericContainer, Wait } = await import('testcontainers')
  const port = await findFreePort()
  const container = await new GenericContainer(image)
    .withNetworkMode('host')
    .withEnvironment({ ...credentials, PGPORT: String(port) })
    .withCommand(['postgres', '-c', 'listen_addresses=127.0.0.1'])
    .withHealthCheck({
      test: ['CMD-SHELL', `PGPASSWORD=test pg_isready --host 127.0.0.1 --username test --dbname test`],
      interval: 250,
      timeout: 1_000,
      retries: 1_000,
    })
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(120_000)
    .start()
  const adminConnectionString = `postgres://test:test@127.0.0.1:${port}/test`
  return { image, network: 'host', adminConnectionString, stop: () => container.stop() }
}

/** A Postgres container for this test process; its `stop` removes it (the reaper may be disabled). */
export const startTestPostgresContainer = async (): Promise<PostgresContainer> => {
  const image = testPostgresImage()
  return (await engineHasBridge()) ? startPublished(image) : startOnHostNetwork(image)
}
