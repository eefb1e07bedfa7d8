// A closed-loop keep-alive load generator: `concurrency` workers, each sending the next body as soon as its previous
// answer is read, over one undici pool of `concurrency` connections.
import { Pool } from 'undici'

export const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)])

/**
 * Sends every body of `bodies` (strings) once to `origin + path` (with `method: 'GET'`, one bodiless request each); `judge(status, json)` returns undefined when the
 * answer is what was expected, else a short reason. Bounded by `timeoutMs` overall and per request.
 */
export const runLoad = async ({ origin, path, bodies, concurrency, judge, method = 'POST', timeoutMs = 300_000, requestTimeoutMs = 60_000 }) => {
  const pool = new Pool(origin, {
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
  })
  const latencies = new Float64Array(bodies.length)
  const answers = new Array(bodies.length)
  const failures = []
  let next = 0
  const deadline = performance.now() + timeoutMs
  const worker = async () => {
    while (next < bodies.length && performance.now() < deadline) {
      const i = next++
      const started = performance.now()
      let reason
      try {
        const response = await pool.request(
          method === 'GET' ? { method, path } : { method, path, headers: { 'content-type': 'application/json' }, body: bodies[i] },
        )
        const text = await response.body.text()
        let json
        try {
          json = JSON.parse(text)
        } catch {
          json = text
        }
        answers[i] = { status: response.statusCode, body: json }
        reason = judge(response.statusCode, json)
      } catch (error) {
        reason = `request failed: ${error.message}`
      }
      latencies[i] = performance.now() - started
      if (reason !== undefined) failures.push({ index: i, reason })
    }
  }
  const started = performance.now()
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    await pool.close().catch(() => undefined)
  }
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
  }
}
