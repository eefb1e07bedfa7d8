import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { DeliveryThreadData } from './delivery-thread.js'
import { applyReport, type RelayMessage } from './thread-relay.js'
import type { WebhookMetrics } from './webhook-metrics.js'

export interface DeliveryThread {
  /** The thread running now (tests end it to see another start). */
  readonly current: () => Worker | undefined
  readonly stop: () => Promise<void>
}

const RESTART_AFTER_MS = 1_000

/**
 * Runs the delivery thread (docs/ARCHITECTURE.md §5.9). On the settle path's event loop each delivery cost about
 * 130 µs of its time (its lease, its attempt, its record; three per payment): the thread takes all of it. One that
 * dies (a bug: its work is retried by the leases) is logged and started again a second later; `stop` waits until the
 * thread has recorded its attempts in flight, at most a lease and a second.
 */
export const startDeliveryThread = (
  data: DeliveryThreadData,
  metrics: WebhookMetrics,
  logger: Logger,
): DeliveryThread => {
  let thread: Worker | undefined
  let stopping = false
  let restart: NodeJS.Timeout | undefined
  let stopped: (() => void) | undefined
  const log = logger.child({ thread: 'webhooks' })

  const start = () => {
    const started = new Worker(new URL('./delivery-thread.js', import.meta.url), { workerData: data })
    started.on('message', (message: RelayMessage) => {
      if (message.kind === 'log') log[message.level](message.fields, message.msg)
      else if (message.kind === 'metrics') applyReport(metrics, message.report)
      else stopped?.()
    })
    started.on('error', (error) => log.error({ err: error }, 'webhooks: the delivery thread failed'))
    started.on('exit', (code) => {
      if (thread !== started) return
      thread = undefined
      stopped?.()
      if (stopping) return
      log.error({ code }, 'webhooks: the delivery thread ended; another starts in a second')
      restart = setTimeout(start, RESTART_AFTER_MS)
    })
    thread = started
  }
  start()

  return {
    current: () => thread,
    stop: async () => {
      stopping = true
      clearTimeout(restart)
      const running = thread
      if (running === undefined) return
      // Its attempts end within their lease: a thread not done by then is ended as it is (their leases run out).
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, data.settings.leaseMs + 1_000)
        stopped = () => {
          clearTimeout(bound)
          resolve()
        }
        running.postMessage('stop')
      })
      await running.terminate()
    },
  }
}
