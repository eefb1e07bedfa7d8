import type { Address, ReplicaLockEvents, ReplicaLockHold } from '@x402-facilitator/domain'
import { acquireReplicaLock, type ReplicaLock } from './advisory-lock.js'
import { lowerCase } from './replica-lock-key.js'
import type { StopInReverse } from '../database/stop-in-reverse.js'

/** A network a replica serves, as the store is told it: its accounts each hold a lock on its chain. */
export interface StoreNetwork {
  /** The spec name rows record in `network` (today's NETWORK_ID). */
  readonly name: string
  /** CAIP-2, e.g. `eip155:84532`. */
  readonly chainId: string
  readonly accounts: ReadonlyArray<Address>
  /** Its tokens: unfinished rows of another token of it refuse the start (journal-networks.ts); unset: any. */
  readonly assets?: ReadonlyArray<Address>
}

export interface TakeLocksOptions {
  readonly connectTimeoutMs: number
  readonly events: Partial<ReplicaLockEvents>
  readonly opened: StopInReverse
}

/**
 * Each (chain, account)'s replica lock, each on its own connection (docs/ARCHITECTURE.md §5.5), in order; for the first
 * network's accounts also the previous release's address-only lock, so that a replica of that release signing with the
 * same key and this one exclude each other. A pair is one hold: held while both are, lost when either is, regained once
 * both are again.
 */
export const takeReplicaLocks = async (
  databaseUrl: string,
  networks: ReadonlyArray<StoreNetwork>,
  { connectTimeoutMs, events, opened }: TakeLocksOptions,
): Promise<ReplicaLockHold[]> => {
  const holds: ReplicaLockHold[] = []
  for (const [index, { chainId, accounts }] of networks.entries()) {
    const distinct = accounts.filter((a, i) => accounts.findIndex((b) => lowerCase(b) === lowerCase(a)) === i)
    for (const account of distinct) {
      const pair: ReplicaLock[] = []
      const bothHeld = () => pair.length > 0 && pair.every((lock) => lock.held())
      // Told once per loss of the pair, however many of its locks went.
      let toldLost = false
      const take = async (owner: { address: Address; chainId?: string }, part: string) => {
        const lock = await acquireReplicaLock(databaseUrl, owner, {
          connectTimeoutMs,
          onLost: (reason) => {
            if (toldLost) return
            toldLost = true
            events.onLost?.(chainId, account, reason)
          },
          onRetryFailed: (reason, heldElsewhere) => events.onRetryFailed?.(chainId, account, reason, heldElsewhere),
          onRegained: () => {
            if (!bothHeld()) return
            toldLost = false
            events.onRegained?.(chainId, account)
          },
        })
        opened.push(part, lock.release)
        pair.push(lock)
      }
      await take({ address: account, chainId }, `replica lock of ${account} on ${chainId}`)
      if (index === 0) await take({ address: account }, `legacy replica lock of ${account}`)
      holds.push({ chainId, account, held: bothHeld })
    }
  }
  return holds
}
