import { ContainerModule } from 'inversify'
import { makeObservability, makeRpcRequestCounter } from '../observability.js'
import { makeReadiness } from '../readiness.js'
import * as tokens from '../tokens.js'

/** `/metrics` and `/readyz`: what they read from the chain and the database. */
export const observabilityModule = new ContainerModule(({ bind }) => {
  bind(tokens.RpcRequestCounter).toDynamicValue(() => makeRpcRequestCounter())
  bind(tokens.Observability).toDynamicValue((context) =>
    makeObservability({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitator: context.get(tokens.Infrastructure).facilitator,
      rpcRequests: context.get(tokens.RpcRequestCounter),
    }),
  )
  bind(tokens.Readiness).toDynamicValue((context) =>
    makeReadiness({
      rpc: context.get(tokens.ChainRpc),
      knex: context.get(tokens.Knex),
      facilitator: context.get(tokens.Infrastructure).facilitator,
      minGasBalanceWei: context.get(tokens.Config).MIN_GAS_BALANCE_WEI,
    }),
  )
})
