/**
 * A circuit breaker for one signing key (docs/ARCHITECTURE.md §5.8). A key the node or the settler refuses (too little
 * ETH for gas, no longer a settler) refuses in milliseconds, so a picker balancing by settles in flight would send it
 * nearly every settle: after a refusal the key is skipped for a backoff (1 s, doubling to 60 s), then given one settle
 * (the probe) at a time until a transaction of it is accepted.
 */
export class KeyBreaker {
  private failures = 0
  private openUntil = 0
  private probing = false

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly baseMs = 1_000,
    private readonly maxMs = 60_000,
  ) {}

  /** Whether a settle may be given to the key now: no refusal since its last success, or its backoff is over and no probe is out. */
  get allows(): boolean {
    return this.failures === 0 || (this.now() >= this.openUntil && !this.probing)
  }

  /** A settle is given to the key; answers whether it is the probe (to be handed back to `leave`). */
  enter(): boolean {
    if (this.failures === 0) return false
    this.probing = true
    return true
  }

  leave(probe: boolean): void {
    if (probe) this.probing = false
  }

  /** A key-specific refusal: the key is skipped for the next backoff, which answers. */
  trip(): number {
    this.failures++
    const backoff = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 16))
    this.openUntil = this.now() + backoff
    return backoff
  }

  /** A transaction of the key was accepted by the node. */
  succeeded(): void {
    this.failures = 0
    this.openUntil = 0
  }
}
