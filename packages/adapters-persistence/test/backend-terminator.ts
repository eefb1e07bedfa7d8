import { setImmediate } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import type { TerminateRequest } from './backend-terminator-worker.js'

/**
 * Terminates backends as a fast shutdown does (pg_terminate_backend: FATAL 57P01 "terminating connection due to
 * administrator command") while this thread is blocked, so that our client reads the backend's last message and the
 * FATAL in one chunk: what a busy process sees when Postgres stops. The termination runs on a worker thread.
 */
export interface BackendTerminator {
  /**
   * For a statement our client has just sent: blocks this thread until its backend of `applicationName` is idle after
   * running it (`lastQuery`), terminates that backend, and answers how many it terminated (0: not idle within 10 s).
   */
  readonly terminateWhenAnswered: (applicationName: string, lastQuery: string) => number
  /**
   * Waits, letting this thread's I/O run between checks, until a backend of `applicationName` is idle after running
   * `lastQuery` ('' for one that has just connected), and terminates it while this thread is blocked: true. False when
   * `missed()` tells first that our client went past that point (it may read the server's answer in the instant
   * between two checks).
   */
  readonly terminateOnceIdle: (applicationName: string, lastQuery: string, missed: () => boolean) => Promise<boolean>
  readonly stop: () => Promise<void>
}

const MAX_CHECKS = 5_000

export const startBackendTerminator = async (connectionString: string): Promise<BackendTerminator> => {
  // [0]: 1 once the worker answered; [1]: how many backends it terminated, -1 if its query failed.
  const cells = new Int32Array(new SharedArrayBuffer(8))
  const worker = new Worker(new URL('./backend-terminator-worker.js', import.meta.url), {
    workerData: { connectionString, cells },
  })
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  const terminate = (request: TerminateRequest): number => {
    Atomics.store(cells, 0, 0)
    worker.postMessage(request)
    if (Atomics.wait(cells, 0, 0, 30_000) === 'timed-out') throw new Error('the backend terminator did not answer')
    const terminated = Atomics.load(cells, 1)
    if (terminated < 0) throw new Error('the backend terminator could not query pg_stat_activity')
    return terminated
  }
  return {
    terminateWhenAnswered: (applicationName, lastQuery) =>
      terminate({ applicationName, lastQuery, statementSent: true }),
    terminateOnceIdle: async (applicationName, lastQuery, missed) => {
      for (let check = 0; check < MAX_CHECKS; check++) {
        await setImmediate()
        if (missed()) return false
        if (terminate({ applicationName, lastQuery, statementSent: false }) > 0) return true
      }
      throw new Error(`no backend of ${applicationName} became idle after ${JSON.stringify(lastQuery)}`)
    },
    stop: async () => {
      await worker.terminate()
    },
  }
}
