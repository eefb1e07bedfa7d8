import type { FannedOut, LeasedDelivery } from '@x402-facilitator/domain'

const key = (endpoint: string, settlementId: string) => `${settlementId} ${endpoint}`

/**
 * When a delivery pass needs a lease statement (docs/ARCHITECTURE.md §5.9). Fan-out leases the new deliveries it may;
 * what it leaves waits for an earlier delivery of its (endpoint, payment), so a lease is wanted after fan-out left
 * some, after an outcome of a pair that has some waiting, while leases fill their room, and at least every `everyMs`
 * (retries come due, leases run out, other replicas leave work). While an endpoint's leases fill its room, fan-out
 * leases it nothing: its due deliveries go first, oldest first, as `lease` takes them.
 */
export class LeaseNeed {
  /** Deliveries fan-out left pending, by (endpoint, payment). */
  private readonly waiting = new Map<string, number>()
  /** Endpoints whose last lease filled its room: due deliveries wait there, so fan-out leases them nothing first. */
  private readonly backlogged = new Set<string>()
  private wanted = true
  private lastLeaseMs = -Infinity

  constructor(
    private readonly everyMs: number,
    private readonly monotonicMs: () => number,
  ) {}

  fannedOut({ waiting }: FannedOut): void {
    for (const { endpoint, settlementId } of waiting) {
      const at = key(endpoint, settlementId)
      this.waiting.set(at, (this.waiting.get(at) ?? 0) + 1)
      this.wanted = true
    }
  }

  /** An attempt's outcome was recorded: the next delivery of its pair may now be due. */
  ended(delivery: LeasedDelivery): void {
    if (this.waiting.has(key(delivery.endpoint, delivery.settlementId))) this.wanted = true
  }

  /** Whether this pass leases; if so, the caller reports each endpoint's lease to `leased`. */
  due(): boolean {
    // Half the period: an idle pass, `everyMs` after the last, leases even if its timer fired a little early.
    const due = this.wanted || this.monotonicMs() - this.lastLeaseMs >= this.everyMs / 2
    if (!due) return false
    this.lastLeaseMs = this.monotonicMs()
    this.wanted = false
    return true
  }

  /** How many of an endpoint's new deliveries fan-out may lease, of the `room` it has. */
  fanOutRoom(endpoint: string, room: number): number {
    return this.backlogged.has(endpoint) ? 0 : room
  }

  /** What one endpoint's lease took, of `room`: a full room (or none) may have left more due. */
  leased(endpoint: string, deliveries: ReadonlyArray<LeasedDelivery>, room: number): void {
    if (room > 0 && deliveries.length >= room) this.backlogged.add(endpoint)
    else if (deliveries.length < room) this.backlogged.delete(endpoint)
    for (const delivery of deliveries) {
      const at = key(delivery.endpoint, delivery.settlementId)
      const left = (this.waiting.get(at) ?? 0) - 1
      if (left > 0) this.waiting.set(at, left)
      else this.waiting.delete(at)
    }
    if (deliveries.length >= room) this.wanted = true
  }

  /** Pairs none of whose deliveries is in flight here wait on others' work: the periodic lease finds theirs. */
  forgetIdle(inFlight: Iterable<LeasedDelivery>): void {
    const flying = new Set([...inFlight].map(({ endpoint, settlementId }) => key(endpoint, settlementId)))
    for (const at of this.waiting.keys()) if (!flying.has(at)) this.waiting.delete(at)
  }
}
