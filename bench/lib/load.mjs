// A closed-loop keep-alive load generator: `concurrency` workers, each with its own connection, sending the next body
// as soon as its previous answer is read.
import { openConnection, requestBytes } from './http1.mjs'

export const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/**
 * Sends every body of `bodies` (strings) once to `origin + path` (with `method: 'GET'`, one bodiless request each); `judge(status, json)` returns undefined when the
 * answer is what was expected, else a short reason. Bounded by `timeoutMs` overall and per request. With
 * `keepLatencies`, the sorted latencies of the requests sent as `latencies` (to merge loads run side by side).
 */
export const runLoad = async ({
  origin,
  path,
  bodies,
  concurrency,
  judge,
  method = 'POST',
  timeoutMs = 300_000,
  requestTimeoutMs = 60_000,
  keepLatencies = false,
}) => {
  const url = new URL(origin)
  const target = { host: url.hostname, port: Number(url.port) }
  const requests = Array.from(bodies, (body) =>
    requestBytes({ method, host: url.host, path, body: method === 'GET' ? undefined : body }),
  )
  const latencies = new Float64Array(bodies.length)
  const answers = new Array(bodies.length)
  const failures = []
  let next = 0
  const deadline = performance.now() + timeoutMs
  const worker = async () => {
    let connection
    try {
      while (next < bodies.length && performance.now() < deadline) {
        const i = next++
        const started = performance.now()
        let reason
        try {
          if (!connection?.alive) connection = await openConnection(target)
          const { status, body } = await connection.send(requests[i], requestTimeoutMs)
          let json
          try {
            json = JSON.parse(body)
          } catch {
            json = body
          }
          answers[i] = { status, body: json }
          reason = judge(status, json)
        } catch (error) {
          reason = `request failed: ${error.message}`
        }
        latencies[i] = performance.now() - started
        if (reason !== undefined) failures.push({ index: i, reason })
      }
    } finally {
      connection?.close()
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsedMs = performance.now() - started
  const sent = Math.min(next, bodies.length)
  const sorted = Array.from(latencies.subarray(0, sent)).sort((a, b) => a - b)
  const notSent = bodies.length - sent
  if (notSent > 0) failures.push({ index: sent, reason: `${notSent} requests not sent within ${timeoutMs} ms` })
  return {
    requests: bodies.length,
    elapsedMs,
    rps: sent / (elapsedMs / 1000),
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    failures: failures.length + (notSent > 0 ? notSent - 1 : 0),
    failureSamples: failures.slice(0, 5),
    answers,
    ...(keepLatencies ? { latencies: sorted } : {}),
  }
}
