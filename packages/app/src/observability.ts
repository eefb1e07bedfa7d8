import { UNFINISHED_STATES, type StoreMetrics } from '@x402-facilitator/domain'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { ProbeSnapshot, Reading } from './probe-snapshot.js'

export interface Observability {
  readonly registry: Registry
  readonly chainCalls: Histogram<'call' | 'outcome'>
  readonly journalCalls: Histogram<'call' | 'outcome'>
  /** Final settlements whose block was replaced afterwards (docs/ARCHITECTURE.md §5.6). */
  readonly finalityViolations: Counter
}

/** Made before the chain adapters (which take its `inc`), registered with the rest by `makeObservability`. */
export const makeRpcRequestCounter = (): Counter =>
  new Counter({
    name: 'facilitator_rpc_requests_total',
    help: 'HTTP requests sent to the node (a JSON-RPC batch counts once)',
    registers: [],
  })

const callHistogram = (registry: Registry, name: string, help: string) =>
  new Histogram({
    name,
    help,
    labelNames: ['call', 'outcome'] as const,
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

/**
 * One registry per service: process metrics, call latencies, and gauges read from the probe snapshot (never per
 * scrape: anonymous scrapes cost Postgres and the node nothing, issue 23 item 6). A part the last refresh could not
 * read is NaN.
 */
export const makeObservability = (deps: {
  snapshot: ProbeSnapshot
  store: StoreMetrics
  rpcRequests: Counter
}): Observability => {
  const registry = new Registry()
  registry.registerMetric(deps.rpcRequests)
  collectDefaultMetrics({ register: registry })
  const { snapshot } = deps
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
  const numberOf = (reading: Reading<bigint | number> | undefined) => (reading?.ok ? Number(reading.value) : Number.NaN)
  new Gauge({
    name: 'facilitator_probe_snapshot_age_seconds',
    help: 'How old the readings of /readyz and of the gauges below are (refreshed every PROBE_REFRESH_MS)',
    registers: [registry],
    collect() {
      this.set(snapshot.ageSeconds() ?? Number.NaN)
    },
  })
  new Gauge({
    name: 'facilitator_settlements',
    help: 'Journal rows in each unfinished state (claimed, submitted, confirmed); ended rows are not counted',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const counts = snapshot.readings?.settlements
      for (const state of UNFINISHED_STATES) this.set({ state }, counts?.ok ? counts.value[state] : Number.NaN)
    },
  })
  // Per signing key (docs/ARCHITECTURE.md §5.8): as many label values as keys.
  new Gauge({
    name: 'facilitator_gas_balance_wei',
    help: "Each signing account's native balance",
    labelNames: ['account'] as const,
    registers: [registry],
    collect() {
      for (const key of snapshot.readings?.keys ?? []) this.set({ account: key.account }, numberOf(key.balanceWei))
    },
  })
  new Gauge({
    name: 'facilitator_pending_transactions',
    help: 'Transactions of each signing account sent and not yet mined (its pending nonce minus its mined nonce)',
    labelNames: ['account'] as const,
    registers: [registry],
    collect() {
      for (const key of snapshot.readings?.keys ?? [])
        this.set({ account: key.account }, numberOf(key.pendingTransactions))
    },
  })
  return {
    registry,
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
      registers: [registry],
    }),
  }
}
