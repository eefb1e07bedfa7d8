import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import pg from 'pg'
import { defaultEmbeddedDataDir, startEmbeddedPostgres } from '../src/dev/embedded-postgres.js'

/** Gone, or a zombie waiting for an init that may not reap: either way no server. */
const isGone = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true
  } catch {
    return true
  }
}

const waitGone = async (pid: number, ms: number): Promise<boolean> => {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (isGone(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return isGone(pid)
}

const query = async (connectionString: string, sql: string) => {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

const modulePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/dev/embedded-postgres.js')

/** A process that starts a server, prints its pid, then ends as `how` says. */
const childStartingPostgres = (dataDir: string, how: 'exit' | 'wait' | 'own-signals') => {
  const script = `
    const { startEmbeddedPostgres } = await import(${JSON.stringify(modulePath)})
    const how = ${JSON.stringify(how)}
    const server = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, handleSignals: how !== 'own-signals' })
    if (how === 'own-signals') {
      process.on('SIGTERM', () => setTimeout(() => { console.log('APP SHUTDOWN DONE'); process.exit(0) }, 300))
    }
    console.log('PID ' + server.pid)
    if (how === 'exit') process.exit(0)
    setInterval(() => undefined, 1000)
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const pid = new Promise<number>((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /PID (\d+)/.exec(output)
      if (match) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before starting Postgres: ${output}`)))
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, pid, exited, output: () => output }
}

describe('startEmbeddedPostgres', function () {
  this.timeout(60_000)
  let parent: string

  before(async () => {
    parent = await mkdtemp(path.join(os.tmpdir(), 'x402-embedded-test-'))
    await chmod(parent, 0o755)
  })
  after(() => rm(parent, { recursive: true, force: true }))

  it('defaults its data to .data/postgres under the working directory', () => {
    expect(defaultEmbeddedDataDir()).to.equal(path.resolve('.data', 'postgres'))
  })

  it('initialises a data directory once, reuses it after, and stops leaving no process', async () => {
    const dataDir = path.join(parent, 'reused')
    const first = await startEmbeddedPostgres({ dataDir })
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).to.equal(true)
    await query(first.connectionString, 'create table kept (x int); insert into kept values (42)')
    await first.stop()
    await first.stop()
    expect(await waitGone(first.pid!, 5_000)).to.equal(true)

    const second = await startEmbeddedPostgres({ dataDir })
    try {
      expect(second.pid).to.not.equal(first.pid)
      expect(await query(second.connectionString, 'select x from kept')).to.deep.equal([{ x: 42 }])
    } finally {
      await second.stop()
    }
    expect(await waitGone(second.pid!, 5_000)).to.equal(true)
  })

  it('stops the server when its parent process exits', async () => {
    const { pid, exited } = childStartingPostgres(path.join(parent, 'orphan-exit'), 'exit')
    const postmaster = await pid
    await exited
    expect(await waitGone(postmaster, 10_000)).to.equal(true)
  })

  it('stops the server when its parent process is terminated (SIGTERM)', async () => {
    const { child, pid, exited } = childStartingPostgres(path.join(parent, 'orphan-term'), 'wait')
    const postmaster = await pid
    child.kill('SIGTERM')
    await exited
    expect(await waitGone(postmaster, 10_000)).to.equal(true)
  })

  it('can leave the signals to the app, and still stops the server when the process exits', async () => {
    const { child, pid, exited, output } = childStartingPostgres(path.join(parent, 'own-signals'), 'own-signals')
    const postmaster = await pid
    child.kill('SIGTERM')
    await exited
    expect(output()).to.include('APP SHUTDOWN DONE')
    expect(await waitGone(postmaster, 10_000)).to.equal(true)
  })

  it('names the directory the postgres user cannot enter when run as root', async function () {
    if (process.getuid?.() !== 0) this.skip()
    const closed = path.join(parent, 'closed')
    await mkdir(closed, { mode: 0o700 })
    await chmod(closed, 0o700)
    let failure: Error | undefined
    await startEmbeddedPostgres({ dataDir: path.join(closed, 'data') }).catch((error: Error) => (failure = error))
    expect(failure?.message).to.include(closed).and.include('cannot enter')
  })

  it('refuses a non-empty directory that is not a data directory', async () => {
    const dataDir = path.join(parent, 'junk')
    await mkdir(dataDir)
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(dataDir, 'file'), 'x'))
    let failure: Error | undefined
    await startEmbeddedPostgres({ dataDir }).catch((error: Error) => (failure = error))
    expect(failure?.message).to.include('neither empty nor a Postgres data directory')
  })
})
