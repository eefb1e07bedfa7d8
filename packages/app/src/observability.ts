import type { CallTimer, StoreMetrics } from '@x402-facilitator/domain'
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'
import { registerRouteGauges, type WatchedLock, type WatchedRoute } from './route-gauges.js'

export type { WatchedLock, WatchedRoute } from './route-gauges.js'

/** One route's metrics: the process' registry, and what its parts time and count, labelled with its network. */
export interface Observability {
  readonly registry: Registry
  readonly chainCalls: CallTimer
  readonly journalCalls: CallTimer
  /** Final settlements whose block was replaced afterwards (docs/ARCHITECTURE.md §5.6). */
  readonly finalityViolations: { readonly inc: () => void }
  /** Rows that ended without their payment (row-end-alerts.ts). */
  readonly cancelled: { readonly inc: () => void }
  readonly unsettleable: { readonly inc: (labels: { reason: string }) => void }
}

/** Made before the chain adapters (which take its `inc`), registered with the rest by `makeObservability`. */
/** HTTP requests each network's chain sent to its node, read from the chain at each scrape. */
const rpcRequestCounter = (registry: Registry, counts: () => ReadonlyArray<RpcRequestCount>) => {
  const seen = new Map<string, number>()
  return new Counter({
    name: 'facilitator_rpc_requests_total',
    help: 'HTTP requests sent to the node (a JSON-RPC batch counts once), per network',
    labelNames: ['network'] as const,
    registers: [registry],
    collect(this: Counter<'network'>) {
      for (const { network, count } of counts()) {
        this.inc({ network }, count - (seen.get(network) ?? 0))
        seen.set(network, count)
      }
    },
  })
}

export interface RpcRequestCount {
  /** The network's name (never its node's URL, which may carry a provider's API key). */
  readonly network: string
  readonly count: number
}

const callHistogram = (registry: Registry, name: string, help: string) =>
  new Histogram({
    name,
    help,
    labelNames: ['network', 'call', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })

/** A counter's `collect`: brought up to what the store counted, at each scrape. */
const countOf = (read: () => number) => {
  let seen = 0
  return function (this: Counter) {
    const now = read()
    this.inc(now - seen)
    seen = now
  }
}

/** The process' metrics, and each network's view of them (`forNetwork`). */
export interface ServiceMetrics {
  readonly registry: Registry
  readonly forNetwork: (network: string) => Observability
}

/**
 * One registry per service: process metrics, call latencies, and gauges read from the routes' probe snapshots (never
 * per scrape: anonymous scrapes cost Postgres and the node nothing, issue 23 item 6), each per network. A part the last
 * refresh could not read is NaN.
 */
export const makeServiceMetrics = (deps: {
  /** Every route, once made: the gauges read them at each scrape. */
  routes: () => ReadonlyArray<WatchedRoute>
  locks: ReadonlyArray<WatchedLock>
  store: StoreMetrics
  rpcRequests: () => ReadonlyArray<RpcRequestCount>
}): ServiceMetrics => {
  const registry = new Registry()
  rpcRequestCounter(registry, deps.rpcRequests)
  collectDefaultMetrics({ register: registry })
  new Counter({
    name: 'facilitator_knex_statements_total',
    help:
      'Statements sent on the knex pool (migrations, replica liveness, the probe snapshot); the journal has its ' +
      'own pool',
    registers: [registry],
    collect: countOf(deps.store.otherStatements),
  })
  // Statements sent to Postgres by the journal (calls of one tick share one): how well writes are batched.
  new Counter({
    name: 'facilitator_journal_statements_total',
    help: 'Statements the journal sent to Postgres (calls of one tick share one)',
    registers: [registry],
    collect: countOf(deps.store.journalStatements),
  })
  registerRouteGauges(registry, deps)
  const labelled = {
    chainCalls: callHistogram(
      registry,
      'facilitator_chain_call_duration_seconds',
      'Chain port calls by call and outcome',
    ),
    journalCalls: callHistogram(
      registry,
      'facilitator_journal_call_duration_seconds',
      'Journal port calls by call and outcome',
    ),
    finalityViolations: new Counter({
      name: 'facilitator_finality_violations_total',
      help:
        'Final settlements whose block was replaced afterwards (a reorg deeper than CONFIRMATIONS); each is ' +
        'finished again',
      labelNames: ['network'] as const,
      registers: [registry],
    }),
    ...makeRowEndCounters(registry),
  }
  // prom-client's own labelled child: the timer a port call starts is the library's, no code of the app's between.
  const timerOf = (histogram: Histogram<'network' | 'call' | 'outcome'>, network: string): CallTimer =>
    histogram.labels({ network })
  return {
    registry,
    forNetwork: (network) => ({
      registry,
      chainCalls: timerOf(labelled.chainCalls, network),
      journalCalls: timerOf(labelled.journalCalls, network),
      finalityViolations: { inc: () => labelled.finalityViolations.inc({ network }) },
      cancelled: { inc: () => labelled.cancelled.inc({ network }) },
      unsettleable: { inc: ({ reason }) => labelled.unsettleable.inc({ network, reason }) },
    }),
  }
}

/** docs/ARCHITECTURE.md §5.5, §5.6: rows that ended without their payment, per network (row-end-alerts.ts). */
const makeRowEndCounters = (registry: Registry) => ({
  cancelled: new Counter({
    name: 'facilitator_cancelled_authorizations_total',
    help: 'Settlements whose authorization the payer cancelled on-chain before ours was mined',
    labelNames: ['network'] as const,
    registers: [registry],
  }),
  unsettleable: new Counter({
    name: 'facilitator_unsettleable_settlements_total',
    help: 'Settlements a reorg sent back that can no longer be mined (expired, funds gone, paused, blacklisted)',
    labelNames: ['network', 'reason'] as const,
    registers: [registry],
  }),
})
