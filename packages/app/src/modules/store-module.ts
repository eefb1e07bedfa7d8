import {
  ConfirmedRows,
  notingConfirmations,
  ReplicaLockGate,
  timedPort,
  type Address,
  type ReplicaLockEvents,
  type Store,
} from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import type { Config } from '../config.js'
import type { Infrastructure } from '../infrastructure.js'
import type { ResourceStack } from '../resource-stack.js'
import * as tokens from '../tokens.js'

/** A network as the store keys it: its rows' name, its chain, and the accounts whose replica locks are taken on it. */
export interface StoreNetworkStart {
  readonly name: string
  /** CAIP-2, as the network's node answered. */
  readonly chainId: string
  readonly accounts: ReadonlyArray<Address>
  /** Its tokens: the store refuses to start over unfinished rows of a token (or network) not served. */
  readonly assets: ReadonlyArray<Address>
}

export interface StoreStart {
  readonly config: Config
  readonly logger: PinoLogger
  /** The first route's (dev mode makes its database anew). */
  readonly infrastructure: Infrastructure
  /** Every network served, the first as the previous release served it (its legacy replica locks). */
  readonly networks: ReadonlyArray<StoreNetworkStart>
  /** Each signing key's replica lock, as it is lost and regained (docs/ARCHITECTURE.md §5.5). */
  readonly lockEvents: ReplicaLockEvents
  readonly progress: (line: string) => void
}

/**
 * What makes the store: `openPostgresStore` (modules/persistence-module.ts), or another adapter's. Swapping the store
 * is passing another one to `startFacilitator`; the rest of the composition does not change.
 */
export type OpenStore = (start: StoreStart) => Promise<Store>

/** Each network's gates, one per key in its accounts' order. */
export type GatesByChain = ReadonlyMap<string, ReadonlyArray<ReplicaLockGate>>

/** Per (chain, key), what its lock's loss and regain do: its gate follows, and an operator hears of it. */
const lockEventsOf = (gates: GatesByChain, logger: PinoLogger): ReplicaLockEvents => {
  const of = (chainId: string, account: Address) => ({
    gate: gates.get(chainId)!.find((g) => g.account === account)!,
    log: logger.child({ chainId, facilitator: account }),
  })
  return {
    onLost: (chainId, account, reason) => {
      const { gate, log } = of(chainId, account)
      gate.lost(reason)
      log.error(
        { reason },
        'the replica advisory lock was lost: settling stops, another replica may recover our rows; re-acquiring it',
      )
    },
    onRetryFailed: (chainId, account, reason, heldElsewhere) => {
      const { gate, log } = of(chainId, account)
      gate.lost(reason, heldElsewhere)
      if (heldElsewhere) {
        log.error(
          { reason },
          'the replica advisory lock is held by another session (another replica with this key?): ' +
            'still refusing to settle',
        )
      } else log.warn({ reason }, 'the replica advisory lock could not be re-acquired yet')
    },
    onRegained: (chainId, account) => {
      const { gate, log } = of(chainId, account)
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
  const gates: GatesByChain = new Map(
    start.networks.map(({ chainId, accounts }) => [
      chainId,
      accounts.map((account) => new ReplicaLockGate(start.logger.child({ chainId }), account)),
    ]),
  )
  const store = await open({ ...start, lockEvents: lockEventsOf(gates, start.logger) })
  resources.push('store', store.stop)
  return { store, gates }
}

/** The ports the store implements, whichever made it; journal calls are timed. */
export const storeModule = new ContainerModule(({ bind }) => {
  // The route's rows: its chain and token (docs/ARCHITECTURE.md §5); owner-keyed reads never see another's.
  bind(tokens.SettlementJournal).toDynamicValue((context) => {
    const { caip2, tokenAddress } = context.get(tokens.Infrastructure)
    const journal = context
      .get(tokens.Store)
      .journalFor({ chainId: caip2, asset: tokenAddress.toLowerCase() as Address })
    return notingConfirmations(
      timedPort(journal, context.get(tokens.Observability).journalCalls),
      context.get(tokens.ConfirmedRows),
    )
  })
  bind(tokens.ConfirmedRows).toConstantValue(new ConfirmedRows())
  bind(tokens.ReplicaLiveness).toDynamicValue((context) =>
    context.get(tokens.Store).livenessFor(context.get(tokens.Infrastructure).caip2),
  )
})
