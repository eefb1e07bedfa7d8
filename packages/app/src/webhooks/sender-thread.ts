import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { WebhookPost } from './webhook-post.js'
import type { SendOutcome } from './webhook-send.js'
import type { SendRequest, SenderThreadData } from './webhook-sender-thread.js'

export interface SenderThread {
  readonly post: WebhookPost
  readonly stop: () => Promise<void>
}

/**
 * The sending of webhook attempts on a thread of its own (docs/ARCHITECTURE.md §5.9). On the settle path's event loop
 * each delivery cost about 300 µs of its time (a request, its syscalls, the HMAC): three per payment made settles 18 %
 * slower with one endpoint (bench webhook-settle); on this thread they cost it a message each way. Should the thread
 * die, its attempts in flight fail (and are retried as any failure) and the next attempt starts another.
 */
export const startSenderThread = (
  { endpoints, timeoutMs, attestationKey }: SenderThreadData,
  logger: Logger,
): SenderThread => {
  const waiting = new Map<number, (outcome: SendOutcome) => void>()
  let seq = 0
  let worker: Worker | undefined
  let stopping = false

  const failAll = (error: string) => {
    for (const answer of waiting.values()) answer({ delivered: false, status: null, error })
    waiting.clear()
  }
  const started = (): Worker => {
    if (worker !== undefined) return worker
    const data: SenderThreadData = { endpoints, timeoutMs, ...(attestationKey ? { attestationKey } : {}) }
    const thread = new Worker(new URL('./webhook-sender-thread.js', import.meta.url), { workerData: data })
    thread.on('message', ({ seq: answered, outcome }: { seq: number; outcome: SendOutcome }) => {
      const answer = waiting.get(answered)
      waiting.delete(answered)
      answer?.(outcome)
    })
    const lost = (reason: string) => {
      if (worker !== thread) return
      worker = undefined
      if (!stopping) logger.error({ reason }, 'webhooks: the sender thread stopped; the next attempt starts another')
      failAll(`the sender thread stopped: ${reason}`)
    }
    thread.on('error', (error) => lost(error.message))
    thread.on('exit', (code) => lost(`exit ${code}`))
    worker = thread
    return thread
  }

  return {
    post: (endpoint, delivery, signedAt, endByMs) =>
      new Promise((resolve) => {
        if (stopping) return resolve({ delivered: false, status: null, error: 'the service is stopping' })
        const request: SendRequest = { seq: ++seq, endpoint: endpoint.url, delivery, signedAt, endByMs }
        waiting.set(request.seq, resolve)
        started().postMessage(request)
      }),
    stop: async () => {
      stopping = true
      const thread = worker
      worker = undefined
      failAll('the service is stopping')
      if (thread !== undefined) await thread.terminate()
    },
  }
}
