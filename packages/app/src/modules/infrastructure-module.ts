import { ContainerModule } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from '../config.js'
import type { Infrastructure } from '../infrastructure.js'
import type { DatabasePools } from '../journal-database.js'
import * as tokens from '../tokens.js'

/** What the start-up steps before the container made: the other modules build on these. */
export interface StartedBeforeContainer {
  readonly config: Config
  readonly logger: PinoLogger
  readonly infrastructure: Infrastructure
  /** The database's pools, migrated, with each key's replica lock held (and its gate). */
  readonly pools: DatabasePools
}

export const infrastructureModule = ({ config, logger, infrastructure, pools }: StartedBeforeContainer) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Config).toConstantValue(config)
    bind(tokens.Logger).toConstantValue(logger)
    bind(tokens.Infrastructure).toConstantValue(infrastructure)
    bind(tokens.Knex).toConstantValue(pools.knex)
    bind(tokens.JournalPool).toConstantValue(pools.journalPool)
    bind(tokens.ReplicaLockGates).toConstantValue(pools.replicaLocks)
  })
