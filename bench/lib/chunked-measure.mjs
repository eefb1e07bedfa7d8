// A measured load whose payments cannot all be signed before it: a Solana payment's blockhash lives 150 slots (15 s
// here) and the official client builds ≈ 110–130 a second on this machine, so they are signed a chunk at a time, each
// chunk right before it is sent, and only the sending is measured (bench/lib/measure.mjs, once per chunk). The chunks'
// figures are then summed as one load: requests over the time spent sending, the latencies merged, CPU and round
// trips summed over the chunks' windows (the signing between them is outside every window).
import { round, say } from './basics.mjs'
import { percentile, runLoad } from './load.mjs'
import { measure } from './measure.mjs'

/**
 * A chunk's payments: the first 200, then as many as the last chunk's pace sends in 6 s (at least 50, at most 500);
 * its signing cut short after 5 s. Signing and sending go in the same order, so a payment's blockhash is at most about
 * as old as the longer of the two when it is sent, well inside its 15 s.
 */
const CHUNK_FIRST = 200
const CHUNK_MIN = 50
const CHUNK_MAX = 500
const CHUNK_SEND_MS = 6_000
export const CHUNK_SIGN_MS = 5_000

/**
 * One phase's chunk sizes (its warm-up's and its measured chunks'): `next(left)`, then `sent(requests, elapsedMs)`. A
 * remainder smaller than the least chunk goes with the chunk before it.
 */
export const chunkPacer = () => {
  let rps
  return {
    next: (left) => {
      const paced = Math.floor((rps * CHUNK_SEND_MS) / 1000)
      const size = rps === undefined ? CHUNK_FIRST : Math.max(CHUNK_MIN, Math.min(CHUNK_MAX, paced))
      return left - size < CHUNK_MIN ? left : size
    },
    sent: (requests, elapsedMs) => {
      rps = requests / (elapsedMs / 1000)
    },
  }
}

/** The sender `measure` is given: runLoad keeping the latencies, to merge the chunks'. */
const keepingLatencies = ({ service, concurrency }, endpoint, signed, judge) =>
  runLoad({
    origin: service.origin,
    path: `/api/facilitator/${endpoint}`,
    bodies: signed.map((b) => b.json),
    concurrency,
    judge,
    keepLatencies: true,
  })

const sumBy = (objects) => {
  const out = {}
  for (const o of objects) for (const [k, v] of Object.entries(o)) out[k] = (out[k] ?? 0) + v
  return out
}
const roundedAll = (o, digits = 0) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v, digits)]))

/** The chunks' port calls as one: calls per request and the mean duration, weighted by requests and calls. */
const mergedPortCalls = (parts) => {
  const totals = {}
  for (const p of parts)
    for (const [call, c] of Object.entries(p.portCalls ?? {})) {
      const t = (totals[call] ??= { count: 0, ms: 0 })
      t.count += c.perRequest * p.requests
      t.ms += c.meanMs * c.perRequest * p.requests
    }
  const requests = parts.reduce((sum, p) => sum + p.requests, 0)
  return Object.fromEntries(
    Object.entries(totals)
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([call, t]) => [call, { perRequest: round(t.count / requests, 3), meanMs: round(t.ms / t.count, 2) }]),
  )
}

/** The chunks' `measure` results as one load's. */
const merged = (parts, extras) => {
  const requests = parts.reduce((sum, p) => sum + p.requests, 0)
  const elapsedMs = parts.reduce((sum, p) => sum + p.elapsedMs, 0)
  const sorted = parts.flatMap((p) => Array.from(p.latencies)).sort((a, b) => a - b)
  const cpu = sumBy(parts.map((p) => p.cpuMsByProcess))
  const weighted = (key) => round(parts.reduce((sum, p) => sum + p[key] * p.requests, 0) / requests, 2)
  return {
    requests,
    elapsedMs: round(elapsedMs, 0),
    rps: round(requests / (elapsedMs / 1000)),
    p50Ms: round(percentile(sorted, 50), 2),
    p90Ms: round(percentile(sorted, 90), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    maxMs: round(sorted[sorted.length - 1] ?? NaN, 2),
    failures: parts.reduce((sum, p) => sum + p.failures, 0),
    failureSamples: parts.flatMap((p) => p.failureSamples).slice(0, 5),
    serviceCpuUsPerRequest: round(((cpu.service ?? 0) * 1000) / requests, 0),
    cpuMsByProcess: roundedAll(cpu),
    serviceCpuMsByThread: roundedAll(sumBy(parts.map((p) => p.serviceCpuMsByThread))),
    cpuCoresBusy: round(Object.values(cpu).reduce((a, b) => a + b, 0) / elapsedMs, 2),
    journalStatementsPerRequest: weighted('journalStatementsPerRequest'),
    nodeRequestsPerRequest: weighted('nodeRequestsPerRequest'),
    portCalls: mergedPortCalls(parts),
    chunks: parts.length,
    ...extras,
  }
}

/**
 * `total` payments, each chunk (`pacer`'s size) signed by `sign(count, budgetMs)` (it may return fewer: what it signed
 * in the budget) and sent to `/api/facilitator/<endpoint>` unmeasured: a warm-up.
 */
export const sendInChunks = async (context, endpoint, { total, sign, judge, pacer }) => {
  let failures = 0
  for (let sent = 0; sent < total;) {
    const signed = await sign(pacer.next(total - sent), CHUNK_SIGN_MS)
    const result = await keepingLatencies(context, endpoint, signed, judge)
    pacer.sent(signed.length, result.elapsedMs)
    failures += result.failures
    if (result.failures > 0) say(`    warm-up failures, e.g. ${JSON.stringify(result.failureSamples.slice(0, 2))}`)
    sent += signed.length
  }
  return failures
}

/**
 * `total` payments measured a chunk at a time (see above), under `label`. With `nodeRequests()` (the chain node's
 * JSON-RPC requests so far, by method), read before and after each chunk's load: the node's requests per request, by
 * method, as `nodeRequestsByMethod`. { result (the phase's JSON), answers and signed (in order, over every chunk) }
 */
export const measureInChunks = async (context, endpoint, { total, sign, judge, pacer, label, nodeRequests }) => {
  const parts = []
  const answers = []
  const signed = []
  const byMethod = {}
  let signingMs = 0
  let oldestMs = 0
  for (let done = 0; done < total;) {
    const started = performance.now()
    const chunk = await sign(pacer.next(total - done), CHUNK_SIGN_MS)
    const signedMs = performance.now() - started
    signingMs += signedMs
    const before = nodeRequests ? await nodeRequests() : {}
    const { result, answers: chunkAnswers } = await measure(
      { ...context, send: keepingLatencies },
      endpoint,
      chunk,
      judge,
      `${label} chunk ${parts.length + 1} (${chunk.length})`,
    )
    const after = nodeRequests ? await nodeRequests() : {}
    for (const [method, n] of Object.entries(after))
      byMethod[method] = (byMethod[method] ?? 0) + n - (before[method] ?? 0)
    pacer.sent(chunk.length, result.elapsedMs)
    // Signed and sent in the same order: the oldest blockhash when sent is about the longer of the two (see above).
    oldestMs = Math.max(oldestMs, signedMs, result.elapsedMs)
    parts.push(result)
    answers.push(...chunkAnswers)
    signed.push(...chunk)
    done += chunk.length
  }
  const requests = signed.length
  const result = merged(parts, {
    ...(nodeRequests
      ? {
          // The service counts its EVM nodes' requests only: these are the Solana node's own count.
          nodeRequestsPerRequest: round(Object.values(byMethod).reduce((a, b) => a + b, 0) / requests, 2),
          nodeRequestsByMethod: Object.fromEntries(
            Object.entries(byMethod)
              .filter(([, n]) => n > 0)
              .sort((a, b) => b[1] - a[1])
              .map(([method, n]) => [method, round(n / requests, 2)]),
          ),
        }
      : {}),
    signing: { ms: round(signingMs, 0), oldestBlockhashAgeMs: round(oldestMs, 0) },
  })
  say(
    `  ${label}: ${result.rps} req/s over ${parts.length} chunks, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.failures} failures`,
  )
  say(`    CPU ms by process ${JSON.stringify(result.cpuMsByProcess)}`)
  if (nodeRequests) say(`    node requests per request, by method: ${JSON.stringify(result.nodeRequestsByMethod)}`)
  return { result, answers, signed }
}
