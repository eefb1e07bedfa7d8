import { makeHttpApp } from '@x402-facilitator/adapters-http'
import { ContainerModule } from 'inversify'
import type Koa from 'koa'
import type { ServiceIdentifier } from 'inversify'
import { Facilitator } from '../facilitator.js'
import * as tokens from '../tokens.js'

export const HttpApp: ServiceIdentifier<Koa> = Symbol.for('HttpApp')

/** The koa application of `packages/adapters-http`, over the facilitator's use cases. */
export const httpModule = () =>
  new ContainerModule(({ bind }) => {
    bind(HttpApp)
      .toDynamicValue((context) => {
        const facilitator = context.get(Facilitator)
        const chain = context.get(tokens.ChainIdentity)
        const operations = context.get(tokens.HttpOperations)
        return makeHttpApp({
          apiKeys: operations.apiKeys,
          ...(operations.rateLimit ? { rateLimit: operations.rateLimit } : {}),
          trustProxy: operations.trustProxy,
          ...(operations.corsOrigins ? { corsOrigins: operations.corsOrigins } : {}),
          metrics: operations.metrics,
          readiness: operations.readiness,
          policy: facilitator.policy,
          caip2Network: chain.caip2,
          tokenDomain: chain.tokenDomain,
          addressChecksum: context.get(tokens.AddressChecksum),
          verifyPayment: facilitator.verify,
          settlePayment: facilitator.settle,
          lookUpSettlement: facilitator.lookUp,
          logger: context.get(tokens.Logger),
        })
      })
      .inSingletonScope()
  })
