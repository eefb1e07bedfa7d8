import { UNFINISHED_STATES, type Address } from '@x402-facilitator/domain'
import { Gauge, type Registry } from 'prom-client'
import type { ProbeSnapshot, Reading } from './probe-snapshot.js'

/** What a network's gauges read of one route: its snapshot (one per token: the same chain, read alike), its lanes. */
export interface WatchedRoute {
  readonly network: string
  readonly snapshot: ProbeSnapshot
  readonly lanes: ReadonlyArray<{ readonly account: Address; readonly inFlight: number }>
}

/** A signing key's replica lock on a network, as its gate follows it. */
export interface WatchedLock {
  readonly network: string
  readonly gate: { readonly account?: Address; readonly lockHeld: boolean }
}

/**
 * The gauges read from the routes' probe snapshots, lanes and locks at each scrape (never the node or Postgres itself:
 * anonymous scrapes cost them nothing, issue 23 item 6), per network where the network matters.
 */
export const registerRouteGauges = (
  registry: Registry,
  deps: { readonly routes: () => ReadonlyArray<WatchedRoute>; readonly locks: ReadonlyArray<WatchedLock> },
): void => {
  const snapshots = () => deps.routes().map((route) => route.snapshot)
  const numberOf = (reading: Reading<bigint | number> | undefined) => (reading?.ok ? Number(reading.value) : Number.NaN)
  new Gauge({
    name: 'facilitator_probe_snapshot_age_seconds',
    help: 'How old the readings of /readyz and of the gauges below are (refreshed every PROBE_REFRESH_MS)',
    registers: [registry],
    collect() {
      const ages = snapshots().map((snapshot) => snapshot.ageSeconds() ?? Number.NaN)
      this.set(ages.length === 0 ? Number.NaN : Math.max(...ages))
    },
  })
  new Gauge({
    name: 'facilitator_settlements',
    help: 'Journal rows in each unfinished state (claimed, submitted, confirmed); ended rows are not counted',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      // The store's rows of every network: each snapshot reads them alike.
      const counts = snapshots()[0]?.readings?.settlements
      for (const state of UNFINISHED_STATES) this.set({ state }, counts?.ok ? counts.value[state] : Number.NaN)
    },
  })
  // Per signing key (docs/ARCHITECTURE.md §5.8): as many label values as keys.
  new Gauge({
    name: 'facilitator_gas_balance_wei',
    help: "Each signing account's native balance, per network",
    labelNames: ['network', 'account'] as const,
    registers: [registry],
    collect() {
      for (const { network, snapshot } of deps.routes())
        for (const key of snapshot.readings?.keys ?? [])
          this.set({ network, account: key.account }, numberOf(key.balanceWei))
    },
  })
  new Gauge({
    name: 'facilitator_pending_transactions',
    help:
      'Transactions of each signing account sent and not yet mined (its pending nonce minus its mined nonce), per ' +
      'network',
    labelNames: ['network', 'account'] as const,
    registers: [registry],
    collect() {
      for (const { network, snapshot } of deps.routes())
        for (const key of snapshot.readings?.keys ?? [])
          this.set({ network, account: key.account }, numberOf(key.pendingTransactions))
    },
  })
  // Per signing key (docs/ARCHITECTURE.md §5.8): as many label values as keys.
  new Gauge({
    name: 'facilitator_replica_lock_held',
    help:
      'Per network and signing account: 1 while this replica holds its Postgres advisory lock, else 0 (it then ' +
      'settles nothing with that key on that network)',
    labelNames: ['network', 'account'] as const,
    registers: [registry],
    collect() {
      for (const { network, gate } of deps.locks)
        this.set({ network, account: gate.account ?? '' }, gate.lockHeld ? 1 : 0)
    },
  })
  new Gauge({
    name: 'facilitator_settles_in_flight',
    help: 'Settles under way per network and signing account (each goes to the least loaded)',
    labelNames: ['network', 'account'] as const,
    registers: [registry],
    collect() {
      const sums = new Map<string, { network: string; account: string; inFlight: number }>()
      for (const { network, lanes } of deps.routes())
        for (const { account, inFlight } of lanes) {
          const sum = sums.get(`${network} ${account}`) ?? { network, account, inFlight: 0 }
          sums.set(`${network} ${account}`, { ...sum, inFlight: sum.inFlight + inFlight })
        }
      for (const { network, account, inFlight } of sums.values()) this.set({ network, account }, inFlight)
    },
  })
}
