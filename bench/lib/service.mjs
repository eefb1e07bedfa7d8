// The service as an operator runs it (production build, its own process), under a watchdog shell that ends it when
// this process dies in any way (its stdin pipe closes), so no service outlives the benchmark.
import { spawn } from 'node:child_process'
import { openSync, closeSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sleep } from './basics.mjs'

const MAIN = fileURLToPath(new URL('../../packages/app/dist/src/main.js', import.meta.url))

const WATCHDOG = `
"$@" &
child=$!
echo "$child" >&3
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
while read -r _line; do :; done
kill -TERM "$child" 2>/dev/null
wait "$child"
`

export const startService = async ({ env, nodeArgs = [], appArgs = [], logFile, readyTimeoutMs = 90_000 }) => {
  const out = openSync(logFile, 'w')
  const watchdog = spawn(
    '/bin/sh',
    ['-c', WATCHDOG, 'service-watchdog', process.execPath, ...nodeArgs, MAIN, ...appArgs],
    {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['pipe', out, out, 'pipe'],
    },
  )
  closeSync(out)
  let gone = false
  const exited = new Promise((resolve) => watchdog.once('exit', () => resolve()))
  void exited.then(() => (gone = true))
  const pid = await new Promise((resolve, reject) => {
    let text = ''
    watchdog.stdio[3].on('data', (chunk) => {
      text += chunk.toString()
      if (text.includes('\n')) resolve(Number(text.trim()))
    })
    void exited.then(() => reject(new Error('the service watchdog exited at once')))
  })
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8')
    } catch {
      return ''
    }
  }
  const stop = async (graceMs = 15_000) => {
    if (gone) return
    watchdog.stdin.end()
    const timer = setTimeout(() => {
      for (const target of [pid, watchdog.pid]) {
        try {
          process.kill(target, 'SIGKILL')
        } catch {
          // gone
        }
      }
    }, graceMs)
    await exited
    clearTimeout(timer)
  }
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    const ready = /x402 facilitator ready at (http:\/\/\S+)\/api\/facilitator/.exec(log())
    if (ready) {
      watchdog.unref()
      for (const stream of [watchdog.stdin, watchdog.stdio[3]]) stream.unref?.()
      return { origin: ready[1], pid, stop, log }
    }
    if (gone || Date.now() > deadline) {
      await stop()
      throw new Error(
        `the service was not ready${gone ? ' (it exited)' : ` within ${readyTimeoutMs} ms`}:\n${log().slice(-3_000)}`,
      )
    }
    await sleep(50)
  }
}
