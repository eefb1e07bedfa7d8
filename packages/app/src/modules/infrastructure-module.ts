import { NOBODY_DENIED, type AddressScreen, type ReplicaLockGate, type Store } from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from '../config.js'
import type { Infrastructure } from '../infrastructure.js'
import type { ServiceMetrics } from '../observability.js'
import type { Chain } from '../tokens.js'
import * as tokens from '../tokens.js'

/** What the start-up steps before the container made: the other modules build on these. */
export interface StartedBeforeContainer {
  readonly config: Config
  readonly logger: PinoLogger
  readonly infrastructure: Infrastructure
  /** The store, its schema up to date, with each key's replica lock held. */
  readonly store: Store
  /** Each key's gate, following its replica lock (modules/store-module.ts). */
  readonly replicaLocks: ReadonlyArray<ReplicaLockGate>
  /** The route's network's chain, opened once for all its routes (start-facilitator.ts). */
  readonly chain: Chain
  /** The process' metrics, shared by every route. */
  readonly metrics: ServiceMetrics
  /** The operator's deny list, one for every route (screening/deny-list-file.ts); unset: nobody denied. */
  readonly screen: AddressScreen | undefined
}

export const infrastructureModule = ({
  config,
  logger,
  infrastructure,
  store,
  replicaLocks,
  chain,
  metrics,
  screen,
}: StartedBeforeContainer) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Config).toConstantValue(config)
    bind(tokens.Logger).toConstantValue(logger)
    bind(tokens.Infrastructure).toConstantValue(infrastructure)
    bind(tokens.Store).toConstantValue(store)
    bind(tokens.ReplicaLockGates).toConstantValue(replicaLocks)
    bind(tokens.Chain).toConstantValue(chain)
    bind(tokens.ServiceMetrics).toConstantValue(metrics)
    bind(tokens.AddressScreen).toConstantValue(screen ?? NOBODY_DENIED)
  })
