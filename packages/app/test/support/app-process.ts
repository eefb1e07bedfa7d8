import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url))

export interface AppProcess {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly kill: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** The production entry point in a process of its own, as an operator runs it; resolves when it is ready. */
export const spawnApp = (
  env: Record<string, string>,
  readyTimeoutMs = 60_000,
  /** Command-line arguments, e.g. `--config FILE`. */
  args: ReadonlyArray<string> = [],
): Promise<AppProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the app was not ready in ${readyTimeoutMs} ms:\n${output}`))
    }, readyTimeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const ready = /x402 facilitator ready at (http:\/\/\S+)\/api\/facilitator/.exec(output)
      if (ready) {
        clearTimeout(timer)
        resolve({
          url: `${ready[1]}/api/facilitator`,
          child,
          output: () => output,
          exited,
          kill: (signal = 'SIGTERM') => {
            child.kill(signal)
            return exited
          },
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the app exited (${code}) before it was ready:\n${output}`))
    })
  })

/**
 * Each body POSTed to `url`'s settle at once: each answer's status, or 'connection lost' for a request the process
 * never answered (it was killed meanwhile).
 */
export const settlesInFlight = (url: string, bodies: ReadonlyArray<unknown>): Array<Promise<number | string>> =>
  bodies.map((body) =>
    fetch(`${url}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(
      (r) => r.status,
      () => 'connection lost',
    ),
  )
