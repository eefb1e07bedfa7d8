import { createHash } from 'node:crypto'
import type { Address } from '@x402-facilitator/domain'

/** A signed 64-bit key (decimal string) for `pg_*advisory_lock(bigint)`, namespaced so other apps do not collide. */
export const advisoryLockKey = (name: string): string =>
  createHash('sha256').update(name).digest().readBigInt64BE(0).toString()

/** A hex address's lock is its lower-case spelling's; another family's address (base58) is its own, case and all. */
export const lowerCase = (address: Address): Address => (/^0x/i.test(address) ? address.toLowerCase() : address)

/**
 * Whose replica lock: a signing account on one chain (CAIP-2), or without `chainId` the address-only lock of the
 * previous release (docs/ARCHITECTURE.md §5.5), still taken for the first network's accounts this release.
 */
export interface LockOwner {
  readonly address: Address
  readonly chainId?: string
}

/** The lock of `address` on `chainId`: the same key on two chains is two locks. */
export const replicaLockKey = (chainId: string, address: Address): string =>
  advisoryLockKey(`x402-facilitator/replica/${chainId}/${lowerCase(address)}`)

/** The previous release's lock, of the address alone. */
export const legacyReplicaLockKey = (address: Address): string =>
  advisoryLockKey(`x402-facilitator/replica/${lowerCase(address)}`)

export const lockKeyOf = ({ address, chainId }: LockOwner): string =>
  chainId === undefined ? legacyReplicaLockKey(address) : replicaLockKey(chainId, address)

export class ReplicaLockHeld extends Error {
  readonly address: Address
  constructor(
    owner: LockOwner,
    readonly key: string,
  ) {
    const of =
      owner.chainId === undefined
        ? `facilitator ${lowerCase(owner.address)} (the previous release's lock, of the address alone)`
        : `facilitator ${lowerCase(owner.address)} on ${owner.chainId}`
    super(
      `another replica already holds the Postgres advisory lock of ${of} (key ${key}): ` +
        'refusing to start. Each replica needs its own FACILITATOR_PRIVATE_KEY.',
    )
    this.name = 'ReplicaLockHeld'
    this.address = lowerCase(owner.address)
  }
}
