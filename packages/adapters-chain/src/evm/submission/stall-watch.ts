import type { Hex } from '@x402-facilitator/domain'

/** A transaction the receipt watcher waits for, as the stall watch sees it. */
export interface StallCandidate {
  readonly hash: Hex
  readonly nonce: bigint
  /** When it (or its latest replacement) was sent, about (performance.now()). */
  sentAt: number
  stallTold?: true
}

export interface StallWatch {
  /** The account's mined nonce moved. */
  readonly minedMoved: () => void
  /** Called each round the mined nonce did not move: tells the lowest waiting transaction stalled, once, if it is. */
  readonly check: (waiting: Iterable<StallCandidate>, minedNonce: bigint) => void
}

/**
 * The account's lowest waiting transaction is stalled when the mined nonce has not moved past it for `stalledAfterMs`
 * since it was sent while a later one of the account waits too (a node parked or dropped it, or its fees fell behind):
 * every later transaction of the key waits behind it. A lowest one alone is no stall (a slow chain holds nothing up).
 */
export const makeStallWatch = (onStalled: (hash: Hex) => void, stalledAfterMs: number): StallWatch => {
  let minedMovedAt = performance.now()
  return {
    minedMoved: () => {
      minedMovedAt = performance.now()
    },
    check: (waiting, minedNonce) => {
      const entries = [...waiting]
      const lowest = entries.find((entry) => entry.nonce === minedNonce)
      if (lowest === undefined || lowest.stallTold || !entries.some((entry) => entry.nonce > minedNonce)) return
      if (performance.now() - Math.max(minedMovedAt, lowest.sentAt) < stalledAfterMs) return
      lowest.stallTold = true
      onStalled(lowest.hash)
    },
  }
}
