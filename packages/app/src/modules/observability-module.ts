import { ContainerModule } from 'inversify'
import { Gauge } from 'prom-client'
import { makeObservability, makeRpcRequestCounter } from '../observability.js'
import { makeReadiness } from '../readiness.js'
import * as tokens from '../tokens.js'

/** `/metrics` and `/readyz`: what they read from the chain and the database. */
export const observabilityModule = new ContainerModule(({ bind }) => {
  bind(tokens.RpcRequestCounter).toDynamicValue(() => makeRpcRequestCounter())
  bind(tokens.Observability).toDynamicValue((context) => {
    const observability = makeObservability({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitator: context.get(tokens.Infrastructure).facilitator,
      rpcRequests: context.get(tokens.RpcRequestCounter),
    })
    const replicaLock = context.get(tokens.ReplicaLockGate)
    new Gauge({
      name: 'facilitator_replica_lock_held',
      help: "1 while this replica holds its Postgres advisory lock, else 0 (it then settles nothing)",
      registers: [observability.registry],
      collect() {
        this.set(replicaLock.lockHeld ? 1 : 0)
      },
    })
    return observability
  })
  bind(tokens.Readiness).toDynamicValue((context) =>
    makeReadiness({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitator: context.get(tokens.Infrastructure).facilitator,
      minGasBalanceWei: context.get(tokens.Config).MIN_GAS_BALANCE_WEI,
      replicaLock: context.get(tokens.ReplicaLockGate),
      settlerAddress: context.get(tokens.Infrastructure).settlerAddress,
    }),
  )
})
