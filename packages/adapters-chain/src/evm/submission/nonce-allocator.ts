/**
 * Account nonces of one signing key, handed out under concurrency (docs/ARCHITECTURE.md §5): consecutive and distinct;
 * a nonce never broadcast comes back and goes out first, so no gap stalls the transactions behind it; after a nonce
 * error the next allocation re-reads the chain's pending count.
 */
export interface NonceAllocator {
  readonly allocate: () => Promise<bigint>
  /** The transaction at this nonce was never broadcast and never will be: hand the nonce out again. */
  readonly release: (nonce: bigint) => void
  /** A transaction at this nonce left the process (or may have): the nonce is spent from here on. */
  readonly markBroadcast: (nonce: bigint) => void
  /**
   * Whatever became of this nonce is not known here, and the journal may name a transaction at it (a record or a
   * release whose outcome is unknown): it is never handed out again from here, though the chain may count it pending,
   * nor does it hold later sends back; recovery, which reads the journal, adopts it (a row names it: its attempt is
   * sent again) or fills it (none does). The next allocation starts from the chain.
   */
  readonly setAside: (nonce: bigint) => void
  /** The node disagreed about nonces: the next allocation starts from the chain's pending count again. */
  readonly resync: () => void
  /** Nonces below this are mined: forget them. A count below an earlier one (a reorg) lowers the floor. */
  readonly observeMined: (minedNonce: bigint) => void
  /**
   * A transaction at this nonce exists outside this process' allocations (journalled by an earlier process, or a gap
   * filler about to leave): never hand it out. False, and nothing changes, when the nonce is mined or handed out here
   * (a nonce set aside is recovery's to adopt).
   */
  readonly adopt: (nonce: bigint) => boolean
  /** An adopted nonce whose transaction did not leave after all (a gap filler the node refused): a gap again. */
  readonly disown: (nonce: bigint) => void
  /** The lowest nonce handed out and neither broadcast nor released yet, leaving out `except`; undefined when none. */
  readonly lowestPrepared: (except: (nonce: bigint) => boolean) => bigint | undefined
  /** Whether a nonce above this one has left the process (or may have): this one then holds it back until filled. */
  readonly broadcastAbove: (nonce: bigint) => boolean
  /** Released nonces with a broadcast one above: each holds that one back until something fills it. */
  readonly returnedGaps: () => ReadonlyArray<bigint>
}

/** `aside`: not handed out, not sent, fate unknown here (`setAside`). */
type Held = 'prepared' | 'broadcast' | 'aside'

export const makeNonceAllocator = (readPendingCount: () => Promise<bigint>): NonceAllocator => {
  let next: bigint | undefined
  /** Nonces handed out and not yet mined (that we know of). */
  const held = new Map<bigint, Held>()
  /** Released nonces, waiting to go out again, lowest first. */
  let returned: bigint[] = []
  let floor = 0n
  let reading: Promise<void> | undefined

  const synchronise = (): Promise<void> =>
    (reading ??= readPendingCount()
      .then((pending) => {
        next = pending
        floor = pending
        returned = []
        for (const nonce of held.keys()) if (nonce < pending) held.delete(nonce)
      })
      .finally(() => {
        reading = undefined
      }))

  const take = (): bigint => {
    const reused = returned.shift()
    if (reused !== undefined) {
      held.set(reused, 'prepared')
      return reused
    }
    let candidate = next!
    // After a resync the pending count may sit below nonces still held here (prepared, or broadcast and dropped).
    while (held.has(candidate)) candidate++
    next = candidate + 1n
    held.set(candidate, 'prepared')
    return candidate
  }

  return {
    allocate: async () => {
      while (next === undefined || reading) await synchronise()
      return take()
    },
    release: (nonce) => {
      if (held.get(nonce) !== 'prepared' || nonce < floor) return
      held.delete(nonce)
      if (next !== undefined && nonce === next - 1n && returned.length === 0) {
        next = nonce
        return
      }
      const at = returned.findIndex((n) => n > nonce)
      if (at < 0) returned.push(nonce)
      else returned.splice(at, 0, nonce)
    },
    markBroadcast: (nonce) => {
      if (nonce >= floor) held.set(nonce, 'broadcast')
    },
    adopt: (nonce) => {
      if (nonce < floor || (held.has(nonce) && held.get(nonce) !== 'aside')) return false
      returned = returned.filter((n) => n !== nonce)
      held.set(nonce, 'broadcast')
      return true
    },
    disown: (nonce) => {
      if (held.get(nonce) === 'broadcast') held.delete(nonce)
    },
    setAside: (nonce) => {
      if (nonce >= floor) held.set(nonce, 'aside')
      returned = returned.filter((n) => n !== nonce)
      next = undefined
    },
    resync: () => {
      next = undefined
    },
    broadcastAbove: (nonce) => {
      for (const [held_, state] of held) if (held_ > nonce && state === 'broadcast') return true
      return false
    },
    returnedGaps: () => {
      if (returned.length === 0) return []
      let highest: bigint | undefined
      for (const [nonce, state] of held)
        if (state === 'broadcast' && (highest === undefined || nonce > highest)) highest = nonce
      return highest === undefined ? [] : returned.filter((n) => n < highest)
    },
    lowestPrepared: (except) => {
      let lowest: bigint | undefined
      for (const [nonce, state] of held)
        if (state === 'prepared' && !except(nonce) && (lowest === undefined || nonce < lowest)) lowest = nonce
      return lowest
    },
    observeMined: (minedNonce) => {
      // Fewer mined than before: a reorg took transactions back (docs/ARCHITECTURE.md §5.6). The nonces between are
      // neither held nor handed out here, so recovery may adopt them: a journalled one is sent again, any other filled.
      if (minedNonce < floor) floor = minedNonce
      if (minedNonce <= floor) return
      floor = minedNonce
      for (const nonce of held.keys()) if (nonce < minedNonce) held.delete(nonce)
      returned = returned.filter((n) => n >= minedNonce)
      if (next !== undefined && next < minedNonce) next = minedNonce
    },
  }
}
