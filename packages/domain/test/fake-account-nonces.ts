import type { Hex } from '@x402-facilitator/domain'

/**
 * The fake submitter's account nonces, as the chain adapter's allocator keeps them: a nonce given back (`discard`) is
 * handed out again first; one set aside (`abandon`) never, though a gap fill may take it; a journalled one never; a gap
 * filled once is mined, not filled again.
 */
export class FakeAccountNonces {
  /** The next nonce never handed out. */
  nextNonce = 0n
  /** How many of the account's transactions are mined (its next unmined nonce). */
  minedCount = 0n
  private readonly returned: bigint[] = []
  /** Handed out here and neither given back nor set aside: not a gap. */
  private readonly inHand = new Set<bigint>()
  /** Journalled or filled: never handed out, never filled (again). */
  private readonly adopted = new Set<bigint>()
  /** How many times each nonce was signed: a nonce signed again gets a hash of its own. */
  private readonly signings = new Map<bigint, number>()

  /** A new process on the same account: the chain's state stays, nothing is handed out or given back here. */
  restart(): void {
    this.returned.length = 0
    this.inHand.clear()
    this.adopted.clear()
  }

  protected handOut(): bigint {
    this.returned.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const nonce = this.returned.shift() ?? this.nextNonce++
    this.inHand.add(nonce)
    return nonce
  }

  /** Distinct for every signing: the nonce's own the first time (`fill` pads it), another each time again. */
  protected hashAt(nonce: bigint, fill: string): Hex {
    const again = this.signings.get(nonce) ?? 0
    this.signings.set(nonce, again + 1)
    const hex = nonce.toString(16)
    if (again === 0) return `0x${hex.padStart(64, fill)}`
    return `0x${again.toString(16).padStart(4, '0')}${hex.padStart(60, 'd')}`
  }

  protected giveBack(nonce: bigint): void {
    if (this.inHand.delete(nonce)) this.returned.push(nonce)
  }

  protected setAside(nonce: bigint): void {
    this.inHand.delete(nonce)
  }

  protected markBroadcast(nonce: bigint): void {
    this.inHand.add(nonce)
    const returned = this.returned.indexOf(nonce)
    if (returned >= 0) this.returned.splice(returned, 1)
  }

  /** Fills every free nonce from the mined count up to the highest journalled one; the fillers are mined at once. */
  protected fillGaps(recorded: ReadonlyArray<bigint>): ReadonlyArray<bigint> {
    const top = recorded.reduce((a, b) => (a > b ? a : b), this.minedCount)
    const filled: bigint[] = []
    for (let n = this.minedCount; n < top; n++) {
      if (!recorded.includes(n) && !this.inHand.has(n) && !this.adopted.has(n)) filled.push(n)
    }
    for (const n of [...filled, ...recorded]) this.adopted.add(n)
    const last = filled.at(-1)
    if (last !== undefined && this.minedCount <= last) this.minedCount = last + 1n
    if (recorded.length > 0 && this.nextNonce <= top) this.nextNonce = top + 1n
    return filled
  }
}
