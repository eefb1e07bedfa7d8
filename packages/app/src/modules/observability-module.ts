import { ContainerModule } from 'inversify'
import { Gauge } from 'prom-client'
import { makeObservability, makeRpcRequestCounter } from '../observability.js'
import { orphanedKeysCheck } from '../orphaned-keys.js'
import { makeReadiness } from '../readiness.js'
import * as tokens from '../tokens.js'

/** `/metrics` and `/readyz`: what they read from the chain and the database. */
export const observabilityModule = new ContainerModule(({ bind }) => {
  bind(tokens.RpcRequestCounter).toDynamicValue(() => makeRpcRequestCounter())
  bind(tokens.Observability).toDynamicValue((context) => {
    const observability = makeObservability({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitators: context.get(tokens.Infrastructure).facilitators,
      rpcRequests: context.get(tokens.RpcRequestCounter),
    })
    const gates = context.get(tokens.ReplicaLockGates)
    new Gauge({
      name: 'facilitator_replica_lock_held',
      help: "Per signing account: 1 while this replica holds its Postgres advisory lock, else 0 (it then settles nothing with that key)",
      labelNames: ['account'] as const,
      registers: [observability.registry],
      collect() {
        for (const gate of gates) this.set({ account: gate.account ?? '' }, gate.lockHeld ? 1 : 0)
      },
    })
    return observability
  })
  bind(tokens.Readiness).toDynamicValue((context) => {
    const readiness = makeReadiness({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitators: context.get(tokens.Infrastructure).facilitators,
      minGasBalanceWei: context.get(tokens.Config).MIN_GAS_BALANCE_WEI,
      replicaLocks: context.get(tokens.ReplicaLockGates),
      settlerAddress: context.get(tokens.Infrastructure).settlerAddress,
    })
    // docs/ARCHITECTURE.md §5.8: keys with rows to follow and no replica: reported, never failing (orphaned-keys.ts).
    const orphanedKeys = orphanedKeysCheck({
      journal: context.get(tokens.SettlementJournal),
      liveness: context.get(tokens.ReplicaLiveness),
      own: context.get(tokens.Infrastructure).facilitators,
    })
    return async () => {
      const [checks, orphans] = await Promise.all([readiness(), orphanedKeys()])
      return { ...checks, orphanedKeys: orphans }
    }
  })
})
