import { acquireReplicaLock, createKnex, createPgPool, migrateToLatest, type PgPool } from '@x402-facilitator/adapters-persistence'
import type { Address } from '@x402-facilitator/domain'
import type { Knex } from 'knex'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from './config.js'
import type { Infrastructure } from './infrastructure.js'
import { ReplicaLockGate } from './replica-lock-gate.js'
import type { ResourceStack } from './resource-stack.js'

/** Two pools on one database: knex for migrations, liveness and probes; pg's own for the journal's prepared statements. */
export interface DatabasePools {
  readonly knex: Knex
  readonly journalPool: PgPool
  /**
   * One per signing key, in the order of `Infrastructure.facilitators` (docs/ARCHITECTURE.md §5.8), each following
   * that key's replica lock: lost, its lane stops settling; re-acquired, it resumes after a recovery pass.
   */
  readonly replicaLocks: ReadonlyArray<ReplicaLockGate>
}

/**
 * The database's pools, with its schema brought up to date, once this replica holds the advisory lock of each account
 * (docs/ARCHITECTURE.md §5.5: while it holds it, no other replica recovers its rows). Stops go on `resources`.
 */
export const openJournalDatabase = async (
  config: Config,
  logger: PinoLogger,
  { databaseUrl, facilitators }: Infrastructure,
  resources: ResourceStack,
  progress: (line: string) => void,
): Promise<DatabasePools> => {
  const knex = createKnex({
    connectionString: databaseUrl,
    timeoutMs: config.DB_TIMEOUT_MS,
    log: {
      warn: (message: unknown) => logger.warn({ knex: String(message) }, 'database'),
      error: (message: unknown) => logger.error({ knex: String(message) }, 'database'),
      deprecate: () => undefined,
      debug: () => undefined,
    },
    // Migrations, replica liveness, probes and metrics: the settlement path runs on the journal's pool.
    poolMax: 4,
  })
  resources.push('database pool', () => knex.destroy())
  const journalPool = createPgPool({
    connectionString: databaseUrl,
    timeoutMs: config.DB_TIMEOUT_MS,
    onIdleError: (error) => logger.warn({ err: error }, 'database: an idle journal connection failed'),
  })
  resources.push('journal pool', () => journalPool.end())
  progress('applying database migrations…')
  await migrateToLatest(knex)
  // One after another: another replica holding any of them stops the start, naming that account (ReplicaLockHeld).
  const replicaLocks: ReplicaLockGate[] = []
  for (const facilitator of facilitators) replicaLocks.push(await holdReplicaLock(config, logger, databaseUrl, facilitator, resources))
  return { knex, journalPool, replicaLocks }
}

/** The advisory lock of one signing account, on a connection of its own, and the gate that follows it. */
const holdReplicaLock = async (config: Config, logger: PinoLogger, databaseUrl: string, facilitator: Address, resources: ResourceStack): Promise<ReplicaLockGate> => {
  const gate = new ReplicaLockGate(logger, facilitator)
  const log = logger.child({ facilitator })
  const lock = await acquireReplicaLock(databaseUrl, facilitator, {
    connectTimeoutMs: config.DB_TIMEOUT_MS,
    onLost: (reason) => {
      gate.lost(reason)
      log.error({ reason }, 'the replica advisory lock was lost: settling stops, another replica may recover our rows; re-acquiring it')
    },
    onRetryFailed: (reason, heldElsewhere) => {
      gate.lost(reason, heldElsewhere)
      if (heldElsewhere) log.error({ reason }, 'the replica advisory lock is held by another session (another replica with this key?): still refusing to settle')
      else log.warn({ reason }, 'the replica advisory lock could not be re-acquired yet')
    },
    onRegained: () => {
      log.warn("the replica advisory lock is re-acquired: recovering this replica's rows before settling again")
      gate.regained()
    },
  })
  resources.push(`replica lock of ${facilitator}`, lock.release)
  return gate
}
