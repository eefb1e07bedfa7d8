import type { ChainRpc } from '@x402-facilitator/adapters-chain'
import { countSettlementsByState } from '@x402-facilitator/adapters-persistence'
import type { Address } from '@x402-facilitator/domain'
import type { Knex } from 'knex'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { nodeQuantity } from './node-quantity.js'

const STATES = ['claimed', 'submitted', 'confirmed', 'final', 'reverted', 'released', 'cancelled', 'unsettleable'] as const

export interface Observability {
  readonly registry: Registry
  readonly chainCalls: Histogram<'call' | 'outcome'>
  readonly journalCalls: Histogram<'call' | 'outcome'>
  /** Statements sent to Postgres by the journal (calls of one tick share one): how well writes are batched. */
  readonly journalStatements: Counter
  /** Final settlements whose block was replaced afterwards (docs/ARCHITECTURE.md §5.6). */
  readonly finalityViolations: Counter
}

/** Made before the chain adapters (which take its `inc`), registered with the rest by `makeObservability`. */
export const makeRpcRequestCounter = (): Counter =>
  new Counter({ name: 'facilitator_rpc_requests_total', help: 'HTTP requests sent to the node (a JSON-RPC batch counts once)', registers: [] })

const callHistogram = (registry: Registry, name: string, help: string) =>
  new Histogram({ name, help, labelNames: ['call', 'outcome'] as const, buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] })

/** One registry per service: process metrics, call latencies, and gauges read when scraped. */
export const makeObservability = (deps: { rpc: ChainRpc; knex: Knex; facilitators: ReadonlyArray<Address>; rpcRequests: Counter }): Observability => {
  const registry = new Registry()
  registry.registerMetric(deps.rpcRequests)
  collectDefaultMetrics({ register: registry })
  const { rpc, knex, facilitators } = deps
  new Gauge({
    name: 'facilitator_settlements',
    help: 'Journal rows by state',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await countSettlementsByState(knex).catch(() => undefined)
      for (const state of STATES) this.set({ state }, counts?.[state] ?? Number.NaN)
    },
  })
  // Per signing key (docs/ARCHITECTURE.md §5.8): as many label values as keys.
  new Gauge({
    name: 'facilitator_gas_balance_wei',
    help: "Each signing account's native balance",
    labelNames: ['account'] as const,
    registers: [registry],
    async collect() {
      await Promise.all(
        facilitators.map(async (account) => {
          const balance = await rpc.read('eth_getBalance', [account, 'latest']).catch(() => undefined)
          this.set({ account }, balance === undefined ? Number.NaN : Number(nodeQuantity(balance, 'eth_getBalance')))
        }),
      )
    },
  })
  new Gauge({
    name: 'facilitator_pending_transactions',
    help: 'Transactions of each signing account sent and not yet mined (its pending nonce minus its mined nonce)',
    labelNames: ['account'] as const,
    registers: [registry],
    async collect() {
      await Promise.all(
        facilitators.map(async (account) => {
          const [pending, latest] = await Promise.all([
            rpc.read('eth_getTransactionCount', [account, 'pending']),
            rpc.read('eth_getTransactionCount', [account, 'latest']),
          ]).catch(() => [undefined, undefined])
          this.set(
            { account },
            pending === undefined || latest === undefined ? Number.NaN : Number(nodeQuantity(pending, 'eth_getTransactionCount') - nodeQuantity(latest, 'eth_getTransactionCount')),
          )
        }),
      )
    },
  })
  return {
    registry,
    chainCalls: callHistogram(registry, 'facilitator_chain_call_duration_seconds', 'Chain port calls by call and outcome'),
    journalCalls: callHistogram(registry, 'facilitator_journal_call_duration_seconds', 'Journal port calls by call and outcome'),
    finalityViolations: new Counter({
      name: 'facilitator_finality_violations_total',
      help: 'Final settlements whose block was replaced afterwards (a reorg deeper than CONFIRMATIONS); each is finished again',
      registers: [registry],
    }),
    journalStatements: new Counter({ name: 'facilitator_journal_statements_total', help: 'Statements the journal sent to Postgres (calls of one tick share one)', registers: [registry] }),
  }
}
