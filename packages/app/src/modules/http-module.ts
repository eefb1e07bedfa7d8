import { makeHttpApp } from '@x402-facilitator/adapters-http'
import { makePaymentRequestDecoder } from '@x402-facilitator/domain'
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
        return makeHttpApp({
          policy: facilitator.policy,
          decodePaymentRequest: makePaymentRequestDecoder(context.get(tokens.AddressChecksum)),
          verifyPayment: facilitator.verify,
          settlePayment: facilitator.settle,
          logger: context.get(tokens.Logger),
        })
      })
      .inSingletonScope()
  })
