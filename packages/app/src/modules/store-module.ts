import type { Address, ReplicaLiveness, ReplicaLockEvents, Store } from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from '../config.js'
import type { Infrastructure } from '../infrastructure.js'
import { instrumented } from '../instrumented.js'
import { ReplicaLockGate } from '../replica-lock-gate.js'
import type { ResourceStack } from '../resource-stack.js'
import * as tokens from '../tokens.js'

export interface StoreStart {
  readonly config: Config
  readonly logger: PinoLogger
  readonly infrastructure: Infrastructure
  /** Each signing key's replica lock, as it is lost and regained (docs/ARCHITECTURE.md §5.5). */
  readonly lockEvents: ReplicaLockEvents
  readonly progress: (line: string) => void
}

/**
 * What makes the store: `openPostgresStore` (modules/persistence-module.ts), or another adapter's. Swapping the store
 * is passing another one to `startFacilitator`; the rest of the composition does not change.
 */
export type OpenStore = (start: StoreStart) => Promise<Store>

/** Per key, what its lock's loss and regain do: its gate follows, and an operator hears of it. */
const lockEventsOf = (gates: ReadonlyArray<ReplicaLockGate>, logger: PinoLogger): ReplicaLockEvents => {
  const of = (account: Address) => ({
    gate: gates.find((g) => g.account === account)!,
    log: logger.child({ facilitator: account }),
  })
  return {
    onLost: (_chainId, account, reason) => {
      const { gate, log } = of(account)
      gate.lost(reason)
      log.error(
        { reason },
        'the replica advisory lock was lost: settling stops, another replica may recover our rows; re-acquiring it',
      )
    },
    onRetryFailed: (_chainId, account, reason, heldElsewhere) => {
      const { gate, log } = of(account)
      gate.lost(reason, heldElsewhere)
      if (heldElsewhere) {
        log.error(
          { reason },
          'the replica advisory lock is held by another session (another replica with this key?): ' +
            'still refusing to settle',
        )
      } else log.warn({ reason }, 'the replica advisory lock could not be re-acquired yet')
    },
    onRegained: (_chainId, account) => {
      const { gate, log } = of(account)
      log.warn("the replica advisory lock is re-acquired: recovering this replica's rows before settling again")
      gate.regained()
    },
  }
}

/**
 * The store, its schema up to date, once this replica holds the advisory lock of each account (docs/ARCHITECTURE.md
 * §5.5: while it holds it, no other replica recovers its rows), and one gate per key following that lock (§5.8):
 * lost, its lane stops settling; re-acquired, it resumes after a recovery pass. Its stop goes on `resources`.
 */
export const openStore = async (open: OpenStore, start: Omit<StoreStart, 'lockEvents'>, resources: ResourceStack) => {
  const replicaLocks = start.infrastructure.facilitators.map((account) => new ReplicaLockGate(start.logger, account))
  const store = await open({ ...start, lockEvents: lockEventsOf(replicaLocks, start.logger) })
  resources.push('store', store.stop)
  return { store, replicaLocks }
}

/** The ports the store implements, whichever made it; journal calls are timed. */
export const storeModule = new ContainerModule(({ bind }) => {
  bind(tokens.SettlementJournal).toDynamicValue((context) =>
    instrumented(context.get(tokens.Store).journal, context.get(tokens.Observability).journalCalls),
  )
  // The checked chain is the one the locks were taken on (the node's: served-network.ts).
  bind(tokens.ReplicaLiveness).toDynamicValue((context): ReplicaLiveness => {
    const store = context.get(tokens.Store)
    return {
      isAlive: (owner) => async () =>
        store.livenessFor((await context.getAsync(tokens.CheckedChain)).caip2).isAlive(owner)(),
    }
  })
})
