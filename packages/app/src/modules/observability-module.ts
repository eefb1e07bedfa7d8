import { ContainerModule } from 'inversify'
import { atMostEvery, orphanedKeysCheck } from '../orphaned-keys-check.js'
import { ProbeSnapshot } from '../probe-snapshot.js'
import { makeReadiness } from '../readiness.js'
import * as tokens from '../tokens.js'

/** `/metrics` and `/readyz`: what they read from the chain and the database, through the background snapshot. */
export const observabilityModule = new ContainerModule(({ bind }) => {
  bind(tokens.ProbeSnapshot).toDynamicValue(
    (context) =>
      new ProbeSnapshot({
        chain: context.get(tokens.Chain).readiness,
        store: context.get(tokens.Store),
        facilitators: context.get(tokens.Infrastructure).facilitators,
        settlerAddress: context.get(tokens.Infrastructure).settlerAddress,
      }),
  )
  // The process' registry, this route's series labelled with its network.
  bind(tokens.Observability).toDynamicValue((context) =>
    context.get(tokens.ServiceMetrics).forNetwork(context.get(tokens.Infrastructure).network),
  )
  bind(tokens.Readiness).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    const readiness = makeReadiness({
      snapshot: context.get(tokens.ProbeSnapshot),
      minGasBalanceWei: config.MIN_GAS_BALANCE_WEI,
      replicaLocks: context.get(tokens.ReplicaLockGates),
      // Three refreshes missed, each bounded by the RPC and journal timeouts: the refresh hangs.
      staleAfterSeconds: (3 * config.PROBE_REFRESH_MS + config.RPC_TIMEOUT_MS + config.DB_TIMEOUT_MS) / 1000,
    })
    // docs/ARCHITECTURE.md §5.8: keys with rows to follow and no replica: reported, never failing (orphaned-keys.ts),
    // read at most once a refresh interval, as the snapshot is.
    const orphanedKeys = atMostEvery(
      config.PROBE_REFRESH_MS,
      orphanedKeysCheck({
        journal: context.get(tokens.SettlementJournal),
        liveness: context.get(tokens.ReplicaLiveness),
        own: context.get(tokens.Infrastructure).facilitators,
      }),
    )
    return async () => {
      const [ready, orphans] = await Promise.all([readiness(), orphanedKeys()])
      return { ...ready, checks: { ...ready.checks, orphanedKeys: orphans } }
    }
  })
})
