// One measured load against the service: latency and throughput (bench/lib/load.mjs), the CPU of every process and
// of the service's threads over it, and the round trips per request from the service's own counters.
import { monotonicUs } from './cpuprofile.mjs'
import { round, say } from './basics.mjs'
import { runLoad } from './load.mjs'
import { describePortCalls, portCallsBetween, portCallTotals } from './port-timings.mjs'
import { cpuDelta, cpuSnapshot, threadCpuMs } from './proc.mjs'

/**
 * The service's own counters of round trips (its /metrics): how many statements and node requests a request cost;
 * and its port calls' durations (bench/lib/port-timings.mjs).
 */
const roundTrips = async (service) => {
  const text = await (await fetch(`${service.origin}/metrics`)).text()
  // Summed over its series: the node's requests are counted per network (a label), the journal's statements are not.
  const counter = (name) => {
    const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].map((m) => Number(m[1]))
    return values.length > 0 ? values.reduce((a, b) => a + b, 0) : Number.NaN
  }
  return {
    journal: counter('facilitator_journal_statements_total'),
    rpc: counter('facilitator_rpc_requests_total'),
    calls: portCallTotals(text),
  }
}

const roundedMs = (cpu) => Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(v, 0)]))

/** Sends every one of `signed` (payments) to `/api/facilitator/<endpoint>`: a warm-up as it is, or the load `measure` measures. */
export const sendPayments = ({ service, concurrency }, endpoint, signed, judge) =>
  runLoad({
    origin: service.origin,
    path: `/api/facilitator/${endpoint}`,
    bodies: signed.map((b) => b.json),
    concurrency,
    judge,
  })

/**
 * Measures `signed` payments sent to `/api/facilitator/<endpoint>` (by `send`, sendPayments unless given), printing a
 * summary under `label`; the phase's window (for the CPU profile) is added to `windows`. { answers, result (the run's
 * JSON for the phase) }
 */
export const measure = async (
  { service, pids, windows, runNumber, concurrency, send = sendPayments },
  endpoint,
  signed,
  judge,
  label = endpoint,
) => {
  const tripsBefore = await roundTrips(service)
  const before = cpuSnapshot(pids)
  const threadsBefore = threadCpuMs(service.pid)
  const startUs = monotonicUs()
  const result = await send({ service, concurrency }, endpoint, signed, judge)
  const cpu = cpuDelta(before, cpuSnapshot(pids))
  const busyThreads = Object.fromEntries(
    Object.entries(cpuDelta(threadsBefore, threadCpuMs(service.pid))).filter(([, v]) => v > 0),
  )
  const tripsAfter = await roundTrips(service)
  const perRequest = (key) => round((tripsAfter[key] - tripsBefore[key]) / signed.length, 2)
  windows.push({ name: `run ${runNumber} ${label}`, startUs, endUs: monotonicUs() })
  const { answers, ...rest } = result
  say(
    `  ${label}: ${round(result.rps)} req/s, p50 ${round(result.p50Ms, 2)} ms, p99 ${round(result.p99Ms, 2)} ms, ${result.failures} failures`,
  )
  say(`    CPU ms by process ${JSON.stringify(roundedMs(cpu))}; service threads ${JSON.stringify(busyThreads)}`)
  say(`    per request: ${perRequest('journal')} journal statements, ${perRequest('rpc')} HTTP requests to the node`)
  const portCalls = portCallsBetween(tripsBefore.calls, tripsAfter.calls, signed.length)
  say(`    port calls (per request, mean duration): ${describePortCalls(portCalls)}`)
  if (result.failures > 0) say(`    e.g. ${JSON.stringify(result.failureSamples.slice(0, 3))}`)
  return {
    answers,
    result: {
      ...rest,
      rps: round(rest.rps),
      p50Ms: round(rest.p50Ms, 2),
      p90Ms: round(rest.p90Ms, 2),
      p99Ms: round(rest.p99Ms, 2),
      maxMs: round(rest.maxMs, 2),
      serviceCpuUsPerRequest: round((cpu.service * 1000) / signed.length, 0),
      cpuMsByProcess: roundedMs(cpu),
      serviceCpuMsByThread: roundedMs(busyThreads),
      cpuCoresBusy: round(Object.values(cpu).reduce((a, b) => a + b, 0) / rest.elapsedMs, 2),
      journalStatementsPerRequest: perRequest('journal'),
      nodeRequestsPerRequest: perRequest('rpc'),
      portCalls,
    },
  }
}
