import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { pauseProcess } from './pause-process.js'

export interface AnvilProcess {
  readonly rpcUrl: string
  readonly port: number
  /** The anvil process itself (not its watchdog), e.g. to SIGSTOP / SIGCONT it. */
  readonly pid: number
  /** Ends anvil and waits for it to be gone; safe to call twice. */
  readonly stop: () => Promise<void>
  /** SIGSTOP, resolved once every thread of anvil is stopped (faults in tests: a node that stops answering). */
  readonly pause: () => Promise<void>
  /** SIGCONT. */
  readonly resume: () => void
}

export interface StartAnvilOptions {
  readonly chainId?: number
  /** Seconds between blocks; unset: a block per transaction (automine). */
  readonly blockTimeSeconds?: number
  readonly extraArgs?: ReadonlyArray<string>
  readonly startTimeoutMs?: number
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** `ANVIL_BIN`, else an `anvil` on PATH, else the binary of `@foundry-rs/anvil-linux-amd64`. */
export const resolveAnvilBinary = (): string => {
  const fromEnv = process.env['ANVIL_BIN']
  if (fromEnv) return fromEnv
  const onPath = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'anvil'))
    .find(isExecutable)
  if (onPath) return onPath
  const packageJson = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return join(dirname(packageJson), 'bin', 'anvil')
}

/**
 * Anvil does not take port 0: ask the kernel for a free loopback port and hand it over (a start retry covers the race).
 */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/**
 * A watchdog between node and anvil: it starts anvil, prints its pid, then blocks reading its stdin. Our end of that
 * pipe closes when we stop it or when this process dies in any way (even SIGKILL), and the watchdog then ends anvil,
 * so no anvil outlives its parent.
 */
const WATCHDOG = `
"$@" >/dev/null &
child=$!
echo "$child"
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
while read -r _line; do :; done
kill -TERM "$child" 2>/dev/null
wait "$child"
`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const answersJsonRpc = async (rpcUrl: string): Promise<boolean> => {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    })
    return response.ok && typeof ((await response.json()) as { result?: unknown }).result === 'string'
  } catch {
    return false
  }
}

type Watchdog = ChildProcessByStdio<Writable, Readable, Readable>

const startOnce = async (binary: string, options: StartAnvilOptions): Promise<AnvilProcess> => {
  const port = await freePort()
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(options.chainId ?? 31337),
    ...(options.blockTimeSeconds !== undefined ? ['--block-time', String(options.blockTimeSeconds)] : []),
    ...(options.extraArgs ?? []),
  ]
  const watchdog: Watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'anvil-watchdog', binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  watchdog.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000)
  })
  const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()))
  let gone = false
  void exited.then(() => (gone = true))

  const pid = await new Promise<number>((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]
      if (out.includes('\n') && line) {
        watchdog.stdout.off('data', onData)
        resolve(Number(line.trim()))
      }
    }
    watchdog.stdout.on('data', onData)
    watchdog.once('error', reject)
    void exited.then(() => reject(new Error(`anvil watchdog exited: ${stderr}`)))
  })

  const stop = async (): Promise<void> => {
    if (gone) return
    try {
      process.kill(pid, 'SIGCONT') // a stopped process would hold SIGTERM until continued
    } catch {
      // already gone
    }
    watchdog.stdin.end()
    const timer = setTimeout(() => {
      for (const target of [pid, watchdog.pid]) {
        try {
          if (target) process.kill(target, 'SIGKILL')
        } catch {
          // already gone
        }
      }
    }, 3_000)
    await exited
    clearTimeout(timer)
  }

  const rpcUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000)
  while (!(await answersJsonRpc(rpcUrl))) {
    if (gone || Date.now() > deadline) {
      await stop()
      throw new Error(`anvil did not start on ${rpcUrl}: ${stderr.trim() || 'no answer in time'}`)
    }
    await sleep(25)
  }
  // Neither the watchdog nor its pipes keep this process alive; when it exits, the watchdog sees EOF and ends anvil.
  watchdog.unref()
  watchdog.stdout.destroy()
  for (const stream of [watchdog.stdin, watchdog.stderr] as const)
    (stream as unknown as { unref?: () => void }).unref?.()
  return { rpcUrl, port, pid, stop, pause: () => pauseProcess(pid), resume: () => process.kill(pid, 'SIGCONT') }
}

/** Starts anvil on a free loopback port and waits until it answers JSON-RPC. */
export const startAnvil = async (options: StartAnvilOptions = {}): Promise<AnvilProcess> => {
  const binary = resolveAnvilBinary()
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, options)
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}
