// The load of the two-network mode: each network's payments sent at once, each network its own closed loop with its
// share of the workers (bench/lib/load.mjs), so one network's pace does not set the other's. Shaped as runLoad's answer
// for the pair together (what bench/lib/measure.mjs measures), with each network's own figures under `networks`.
import { round } from './basics.mjs'
import { percentile, runLoad } from './load.mjs'

/** `concurrency` workers shared out over `parts` loads, the first ones taking the remainder. */
const workersOf = (concurrency, parts, index) =>
  Math.max(1, Math.floor(concurrency / parts) + (index < concurrency % parts ? 1 : 0))

const figures = ({ requests, elapsedMs, rps, p50Ms, p90Ms, p99Ms, maxMs, failures }, concurrency) => ({
  requests,
  concurrency,
  elapsedMs: round(elapsedMs, 0),
  rps: round(rps),
  p50Ms: round(p50Ms, 2),
  p90Ms: round(p90Ms, 2),
  p99Ms: round(p99Ms, 2),
  maxMs: round(maxMs, 2),
  failures,
})

/**
 * A sender for `measure` (or a warm-up): `lists` [{ name, signed }] sent side by side to `/api/facilitator/<endpoint>`;
 * the answers in the order of the lists concatenated (what `signed` is, which it ignores).
 */
export const splitSender =
  (lists) =>
  async ({ service, concurrency }, endpoint, _signed, judge) => {
    const started = performance.now()
    const parts = await Promise.all(
      lists.map(({ signed }, i) =>
        runLoad({
          origin: service.origin,
          path: `/api/facilitator/${endpoint}`,
          bodies: signed.map((b) => b.json),
          concurrency: workersOf(concurrency, lists.length, i),
          judge,
          keepLatencies: true,
        }),
      ),
    )
    const elapsedMs = performance.now() - started
    const sorted = parts.flatMap((p) => Array.from(p.latencies)).sort((a, b) => a - b)
    return {
      requests: parts.reduce((sum, p) => sum + p.requests, 0),
      elapsedMs,
      rps: sorted.length / (elapsedMs / 1000),
      p50Ms: percentile(sorted, 50),
      p90Ms: percentile(sorted, 90),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1] ?? NaN,
      failures: parts.reduce((sum, p) => sum + p.failures, 0),
      failureSamples: parts.flatMap((p, i) => p.failureSamples.map((f) => ({ network: lists[i].name, ...f }))),
      answers: parts.flatMap((p) => p.answers),
      networks: Object.fromEntries(
        lists.map(({ name }, i) => [name, figures(parts[i], workersOf(concurrency, lists.length, i))]),
      ),
    }
  }
