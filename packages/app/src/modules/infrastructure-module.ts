import type { Store } from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from '../config.js'
import type { Infrastructure } from '../infrastructure.js'
import type { ReplicaLockGate } from '../replica-lock-gate.js'
import type { OpenChain } from './chain-module.js'
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
  /** What makes the chain (modules/chain-module.ts). */
  readonly openChain: OpenChain
}

export const infrastructureModule = ({
  config,
  logger,
  infrastructure,
  store,
  replicaLocks,
  openChain,
}: StartedBeforeContainer) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Config).toConstantValue(config)
    bind(tokens.Logger).toConstantValue(logger)
    bind(tokens.Infrastructure).toConstantValue(infrastructure)
    bind(tokens.Store).toConstantValue(store)
    bind(tokens.ReplicaLockGates).toConstantValue(replicaLocks)
    bind(tokens.OpenChain).toConstantValue(openChain)
  })
