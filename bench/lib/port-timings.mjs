// Where a settle's wall time goes inside the service: its own per-port call histograms (`/metrics`:
// facilitator_chain_call_duration_seconds and facilitator_journal_call_duration_seconds, by call), read before and after
// a phase. Calls overlap (a batch's payments wait on one `send`), so these are latencies, not shares of CPU.
import { round } from './basics.mjs'

const HISTOGRAMS = {
  chain: 'facilitator_chain_call_duration_seconds',
  journal: 'facilitator_journal_call_duration_seconds',
}

/** `/metrics` text → { 'chain.send': { seconds, count } } summed over outcomes. */
export const portCallTotals = (metricsText) => {
  const totals = {}
  for (const [port, name] of Object.entries(HISTOGRAMS)) {
    const line = new RegExp(`^${name}_(sum|count)\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm')
    for (const [, kind, labels, value] of metricsText.matchAll(line)) {
      const call = /call="([^"]*)"/.exec(labels)?.[1]
      if (!call) continue
      const entry = (totals[`${port}.${call}`] ??= { seconds: 0, count: 0 })
      if (kind === 'sum') entry.seconds += Number(value)
      else entry.count += Number(value)
    }
  }
  return totals
}

/**
 * The calls made between two readings, most total time first: { call: { perRequest, meanMs } } for `requests`
 * requests (calls per request, and the mean duration of one call).
 */
export const portCallsBetween = (before, after, requests) => {
  const rows = Object.entries(after)
    .map(([call, a]) => {
      const b = before[call] ?? { seconds: 0, count: 0 }
      return [call, { count: a.count - b.count, seconds: a.seconds - b.seconds }]
    })
    .filter(([, d]) => d.count > 0)
    .sort((x, y) => y[1].seconds - x[1].seconds)
  return Object.fromEntries(
    rows.map(([call, d]) => [
      call,
      { perRequest: round(d.count / requests, 3), meanMs: round((1000 * d.seconds) / d.count, 2) },
    ]),
  )
}

/** One line: the calls with the most total time, e.g. "chain.send 0.04/req 35.2 ms". */
export const describePortCalls = (calls, top = 8) =>
  Object.entries(calls)
    .slice(0, top)
    .map(([call, c]) => `${call} ${c.perRequest}/req ${c.meanMs} ms`)
    .join(', ')
