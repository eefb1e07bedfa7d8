import type { CancelTimer, Clock } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { inject, injectable } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import * as tokens from './tokens.js'

/** What the loop runs, whichever chain family the route's lanes settle on. */
export interface RecoveringFacilitator {
  readonly recover: tokens.RouteFacilitator['recover']
  readonly lanes: ReadonlyArray<unknown>
}

/** Runs recovery at start-up and every interval, one pass at a time (docs/ARCHITECTURE.md §5.5). */
@injectable()
export class RecoveryLoop {
  private cancelTimer: CancelTimer | undefined
  private running: Promise<void> | undefined
  private stopped = false

  constructor(
    @inject(tokens.Facilitator) private readonly facilitator: RecoveringFacilitator,
    @inject(tokens.Logger) private readonly logger: PinoLogger,
    @inject(tokens.Clock) private readonly clock: Clock,
  ) {}

  readonly runOnce = async (options: { startUp?: boolean } = {}): Promise<void> => {
    for (const { account, report } of await this.facilitator.recover(options)) {
      // One key: the lines read as before; several: each names its lane's account (docs/ARCHITECTURE.md §5.8).
      const lane = this.facilitator.lanes.length > 1 ? { facilitator: account } : {}
      if (E.isLeft(report)) {
        this.logger.warn({ ...lane, reason: report.left.reason }, 'recovery pass skipped: the journal is unavailable')
      } else if (report.right.examined > 0 || (report.right.noncesFilled?.length ?? 0) > 0) {
        const { noncesFilled = [], ...counts } = report.right
        this.logger.info({ ...lane, recovery: { ...counts, noncesFilled: noncesFilled.map(String) } }, 'recovery pass')
      }
    }
  }

  start(intervalMs: number): void {
    const tick = () => {
      this.cancelTimer = undefined
      if (this.stopped) return
      this.running = this.runOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'recovery pass failed'))
        .finally(() => {
          this.running = undefined
          if (!this.stopped) this.cancelTimer = this.clock.after(intervalMs, tick)
        })
    }
    this.cancelTimer = this.clock.after(intervalMs, tick)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.cancelTimer?.()
    await this.running
  }
}
