import type { WebhookMetrics } from './webhook-metrics.js'

/** What the delivery thread tells the service's thread: log lines, and its metrics summed since the last report. */
export type RelayMessage =
  | { readonly kind: 'log'; readonly level: LogLevel; readonly fields: Record<string, unknown>; readonly msg: string }
  | { readonly kind: 'metrics'; readonly report: MetricsReport }
  | { readonly kind: 'stopped' }

export type LogLevel = 'info' | 'warn' | 'error'

/** The delivery worker's log (a pino logger is one). */
export interface WorkerLog {
  readonly info: (msg: string) => void
  readonly warn: (fields: Record<string, unknown>, msg: string) => void
  readonly error: (fields: Record<string, unknown>, msg: string) => void
}

interface MetricsReport {
  readonly delivered: Array<[string, number]>
  readonly lagMs: Array<[string, number]>
  readonly failed: Array<[string, number]>
  readonly dead: Array<[string, number]>
  readonly backlog?: { readonly pending: number; readonly oldestMs: number }
}

/** An error as fields that cross threads (structured clone keeps no class, and pino names `err` by its fields). */
const plain = (fields: Record<string, unknown>): Record<string, unknown> => {
  const { err, ...rest } = fields
  if (!(err instanceof Error)) return fields
  return { ...rest, err: { type: err.name, message: err.message, stack: err.stack } }
}

/** The thread's side: log lines posted at once (they are few); metrics summed and posted by `flush`. */
export const relayFrom = (post: (message: RelayMessage) => void) => {
  const counts = {
    delivered: new Map<string, number>(),
    failed: new Map<string, number>(),
    dead: new Map<string, number>(),
  }
  const lagMs = new Map<string, number>()
  let backlog: MetricsReport['backlog']
  const add = (map: Map<string, number>, label: string) => map.set(label, (map.get(label) ?? 0) + 1)
  const line = (level: LogLevel) => (fields: Record<string, unknown>, msg: string) =>
    post({ kind: 'log', level, fields: plain(fields), msg })
  const log: WorkerLog = { info: (msg) => line('info')({}, msg), warn: line('warn'), error: line('error') }
  const metrics: WebhookMetrics = {
    delivered: (label, lag) => {
      add(counts.delivered, label)
      lagMs.set(label, lag)
    },
    failed: (label) => add(counts.failed, label),
    deadLettered: (label) => add(counts.dead, label),
    backlog: (pending, oldestMs) => (backlog = { pending, oldestMs }),
  }
  const flush = () => {
    const report: MetricsReport = {
      delivered: [...counts.delivered],
      lagMs: [...lagMs],
      failed: [...counts.failed],
      dead: [...counts.dead],
      ...(backlog === undefined ? {} : { backlog }),
    }
    for (const map of [counts.delivered, counts.failed, counts.dead, lagMs]) map.clear()
    backlog = undefined
    post({ kind: 'metrics', report })
  }
  return { log, metrics, flush }
}

/** The service's side: a report applied to the service's metrics. */
export const applyReport = (metrics: WebhookMetrics, report: MetricsReport): void => {
  const lag = new Map(report.lagMs)
  for (const [label, count] of report.delivered) metrics.delivered(label, lag.get(label) ?? 0, count)
  for (const [label, count] of report.failed) metrics.failed(label, count)
  for (const [label, count] of report.dead) metrics.deadLettered(label, count)
  if (report.backlog !== undefined) metrics.backlog(report.backlog.pending, report.backlog.oldestMs)
}
