import { execFile } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/**
 * Issue 23 item 14's client: a fresh connection (`agent: false`), the body streamed in 64 KiB write/drain steps with
 * its Content-Length, resolved by the first `response` or `error`: what it sees first, a status or a reset while
 * still writing.
 */
const postInChunks = (url: string, size: number, headers: Record<string, string>): Promise<number | string> =>
  new Promise((resolve) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': size, ...headers },
    })
    let settled = false
    const settle = (outcome: number | string) => {
      if (settled) return
      settled = true
      resolve(outcome)
      req.destroy()
    }
    req.on('response', (res) => settle(res.statusCode ?? 0))
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message))
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let sent = 0
    const writeMore = () => {
      while (sent < size && !settled) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent))
        sent += part.length
        if (!req.write(part)) return void req.once('drain', writeMore)
      }
      if (!settled) req.end()
    }
    writeMore()
  })

const SELF = fileURLToPath(import.meta.url)

/**
 * `times` such requests one after another from a process of its own (in the server's process the client would read
 * each answer in the same event loop turn the server writes it, and never see the race); what each one saw.
 */
export const postInChunksFromAnotherProcess = async (
  url: string,
  size: number,
  times: number,
  headers: Record<string, string> = {},
): Promise<Array<number | string>> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [SELF, url, String(size), String(times), JSON.stringify(headers)],
    { maxBuffer: 1024 * 1024 },
  )
  return JSON.parse(stdout) as Array<number | string>
}

if (process.argv[1] === SELF) {
  const [url, size, times, headers] = process.argv.slice(2)
  const outcomes: Array<number | string> = []
  for (let i = 0; i < Number(times); i++)
    outcomes.push(await postInChunks(url!, Number(size), JSON.parse(headers!) as Record<string, string>))
  process.stdout.write(JSON.stringify(outcomes))
}
