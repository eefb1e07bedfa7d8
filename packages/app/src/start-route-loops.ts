import { warnOfOrphanedKeys, type ReplicaLockGate } from '@x402-facilitator/domain'
import type { Container } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from './config.js'
import type { Infrastructure } from './infrastructure.js'
import { RecoveryLoop } from './recovery-loop.js'
import type { ResourceStack } from './resource-stack.js'
import * as tokens from './tokens.js'

/**
 * A route's background work at start-up, before it serves: one recovery pass, then its recovery loop and its finality
 * watcher, each stopped by the resource stack.
 */
export const startRouteLoops = async (
  { container, infrastructure }: { readonly container: Container; readonly infrastructure: Infrastructure },
  deps: {
    readonly config: Config
    readonly logger: PinoLogger
    readonly gates: ReadonlyMap<string, ReadonlyArray<ReplicaLockGate>>
    readonly resources: ResourceStack
  },
): Promise<void> => {
  const { config, logger, gates, resources } = deps
  const recovery = await container.getAsync(RecoveryLoop)
  await recovery.runOnce({ startUp: true })
  // docs/ARCHITECTURE.md §5.8: a key removed from the pool before its rows were drained.
  await warnOfOrphanedKeys(
    container.get(tokens.SettlementJournal),
    container.get(tokens.ReplicaLiveness),
    infrastructure.facilitators,
    logger,
  )
  recovery.start(config.RECOVERY_INTERVAL_MS)
  // docs/ARCHITECTURE.md §5.5: another replica may have touched our rows while the lock was lost.
  for (const gate of gates.get(infrastructure.caip2)!) gate.onRegained(() => void recovery.runOnce())
  resources.push('recovery loop', () => recovery.stop())
  // docs/ARCHITECTURE.md §5.6: its first check covers rows a killed process left confirmed but not final.
  const finality = await container.getAsync(tokens.FinalityWatcher)
  finality.start()
  resources.push('finality watcher', () => finality.stop())
}
