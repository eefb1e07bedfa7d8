import type { AttemptOutcome, CancelTimer, Clock, LeasedDelivery, WebhookOutbox } from '@x402-facilitator/domain'
import { attemptOutcome, reportOutcomes } from './attempt-outcome.js'
import type { DeliverySettings } from './delivery-settings.js'
import { LeaseNeed } from './lease-need.js'
import { fanOutTarget, type WebhookEndpoint } from './webhook-endpoints.js'
import type { WebhookMetrics } from './webhook-metrics.js'
import type { WebhookPost } from './webhook-post.js'
import type { WorkerLog } from './thread-relay.js'

export type { DeliverySettings } from './delivery-settings.js'

/** How often a replica without endpoints prunes the outbox. */
const IDLE_WITHOUT_ENDPOINTS_MS = 60_000

export interface DeliveryWorkerDeps {
  readonly outbox: WebhookOutbox
  readonly endpoints: ReadonlyArray<WebhookEndpoint>
  /** Signs and sends one attempt. */
  readonly post: WebhookPost
  /** Decides when a retry is due and signs each attempt's time; tests drive it. */
  readonly clock: Clock
  /** Paces the polls and the housekeeping (the machine's timers, also under a test clock). */
  readonly timers: Pick<Clock, 'after' | 'monotonicMs'>
  readonly logger: WorkerLog
  readonly metrics: WebhookMetrics
  readonly settings: DeliverySettings
}

const FAN_OUT_BATCH = 500
const HOUSEKEEPING_MS = 5_000
const BUSY_PASS_MS = 50

/**
 * docs/ARCHITECTURE.md §5.9: fans events out to deliveries and sends them, apart from the settle path: at least once,
 * in order per (endpoint, payment), leased so that no two replicas send one at once; a lease a killed process held
 * runs out and is taken again.
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, number>()
  private readonly sending = new Map<Promise<void>, LeasedDelivery>()
  private readonly outcomes: AttemptOutcome[] = []
  private cancel: CancelTimer | undefined
  private stopped = false
  private lastHousekeeping = -Infinity
  private running = false
  private failing = false
  private due = 0
  private again = false
  private readonly leaseNeed: LeaseNeed

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.leaseNeed = new LeaseNeed(deps.settings.pollMs, () => deps.timers.monotonicMs())
  }

  start(): void {
    this.schedule(0)
  }

  /**
   * The next pass within `ms`, never two at once. After work, or a send that ended, it comes `BUSY_PASS_MS` later:
   * the sends ending meanwhile share one fan-out and one lease.
   */
  private schedule(ms: number): void {
    if (this.stopped) return
    if (this.running) {
      this.again = this.again || ms <= BUSY_PASS_MS
      return
    }
    const due = this.deps.timers.monotonicMs() + ms
    if (this.cancel !== undefined && this.due <= due) return
    this.cancel?.()
    this.due = due
    this.cancel = this.deps.timers.after(ms, () => {
      this.cancel = undefined
      this.running = true
      void this.tick().then((busy) => {
        this.running = false
        const again = busy || this.again
        this.again = false
        this.schedule(again ? BUSY_PASS_MS : this.idleMs())
      })
    })
  }

  /**
   * Between passes with nothing to do: `pollMs`; a replica without endpoints only keeps the outbox pruned, so it
   * looks once a minute (every replica polling Postgres 5 times a second for nothing costs them all).
   */
  private idleMs(): number {
    const { pollMs } = this.deps.settings
    return this.deps.endpoints.length === 0 ? Math.max(pollMs, IDLE_WITHOUT_ENDPOINTS_MS) : pollMs
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.cancel?.()
    await Promise.all([...this.sending.keys()])
    await this.recordOutcomes().catch(() => undefined)
  }

  /**
   * One pass: fan out (leasing what it may), then lease and send what each endpoint has room for when a lease is
   * wanted (`LeaseNeed`; the sends are not awaited); whether it found work. A replica with no endpoint fans nothing
   * out: its events wait for one that has (or are pruned).
   */
  async tick(): Promise<boolean> {
    const { endpoints, logger } = this.deps
    try {
      const recorded = await this.recordOutcomes()
      const fanned = endpoints.length === 0 ? 0 : await this.fanOut()
      let leased = 0
      if (this.leaseNeed.due()) for (const endpoint of endpoints) leased += await this.leaseFor(endpoint)
      await this.housekeeping()
      if (this.failing) logger.info('webhooks: delivery passes work again')
      this.failing = false
      return recorded + fanned + leased > 0
    } catch (error) {
      // Once per outage, not at every pass (Postgres away, the worker tries again every WEBHOOK_POLL_MS).
      if (!this.failing) logger.warn({ err: error }, 'webhooks: a delivery pass failed; the next ones try again')
      this.failing = true
      return false
    }
  }

  private room(endpoint: WebhookEndpoint): number {
    return this.stopped ? 0 : Math.max(0, this.deps.settings.concurrency - (this.inFlight.get(endpoint.url) ?? 0))
  }

  /** How many events it fanned out and deliveries it leased at once; those are sent. */
  private async fanOut(): Promise<number> {
    const { outbox, endpoints, clock, settings } = this.deps
    const now = clock.now()
    // In real time, whatever `clock` is: taken before the lease, so an attempt never outlives it.
    const endByMs = Date.now() + settings.leaseMs
    const room = (endpoint: WebhookEndpoint) => this.leaseNeed.fanOutRoom(endpoint.url, this.room(endpoint))
    const to = endpoints.map((endpoint) => fanOutTarget(endpoint, room(endpoint)))
    const fanned = await outbox.fanOut(to, now, FAN_OUT_BATCH, new Date(now.getTime() + settings.leaseMs))
    this.leaseNeed.fannedOut(fanned)
    for (const leased of fanned.leased)
      this.sendLeased(
        endpoints.find((e) => e.url === leased.endpoint)!,
        leased,
        endByMs,
      )
    return fanned.fanned + fanned.leased.length
  }

  /** How many it leased; each is sent, its outcome recorded by a later pass (its slot held until then). */
  private async leaseFor(endpoint: WebhookEndpoint): Promise<number> {
    const { outbox, clock, settings } = this.deps
    const room = this.room(endpoint)
    if (room <= 0) return 0
    const now = clock.now()
    const endByMs = Date.now() + settings.leaseMs
    const leased = await outbox.lease(endpoint.url, now, new Date(now.getTime() + settings.leaseMs), room)
    this.leaseNeed.leased(endpoint.url, leased, room)
    for (const delivery of leased) this.sendLeased(endpoint, delivery, endByMs)
    return leased.length
  }

  private sendLeased(endpoint: WebhookEndpoint, delivery: LeasedDelivery, endByMs: number): void {
    this.inFlight.set(endpoint.url, (this.inFlight.get(endpoint.url) ?? 0) + 1)
    const sent = attemptOutcome(this.deps, endpoint, delivery, endByMs).then((outcome) => {
      this.sending.delete(sent)
      this.outcomes.push(outcome)
      this.schedule(BUSY_PASS_MS)
    })
    this.sending.set(sent, delivery)
  }

  /**
   * The outcomes of the sends that ended, in one statement; then their metrics and logs, their slots freed. Should it
   * fail, their leases run out and they are sent again: at least once.
   */
  private async recordOutcomes(): Promise<number> {
    const outcomes = this.outcomes.splice(0)
    if (outcomes.length === 0) return 0
    for (const { delivery } of outcomes) this.inFlight.set(delivery.endpoint, this.inFlight.get(delivery.endpoint)! - 1)
    const applied = await this.deps.outbox.record(outcomes)
    for (const { delivery } of outcomes) this.leaseNeed.ended(delivery)
    reportOutcomes(outcomes, applied, this.deps)
    return outcomes.length
  }

  /** Every `HOUSEKEEPING_MS` of the monotonic clock: the backlog gauges read, ended rows pruned. */
  private async housekeeping(): Promise<void> {
    const { outbox, clock, metrics, settings } = this.deps
    if (this.deps.timers.monotonicMs() - this.lastHousekeeping < HOUSEKEEPING_MS) return
    this.lastHousekeeping = this.deps.timers.monotonicMs()
    const now = clock.now()
    const { oldestMs, pending } = await outbox.backlog(now)
    metrics.backlog(pending, oldestMs)
    await outbox.prune(new Date(now.getTime() - settings.pruneAfterMs))
    this.leaseNeed.forgetIdle(this.sending.values())
  }
}
