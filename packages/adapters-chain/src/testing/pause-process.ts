import { readdirSync, readFileSync } from 'node:fs'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const stateOf = (statFile: string): string => {
  const stat = readFileSync(statFile, 'utf8')
  return stat.charAt(stat.lastIndexOf(')') + 2)
}

/** Whether every thread of `pid` is stopped; undefined where /proc cannot tell. */
const allThreadsStopped = (pid: number): boolean | undefined => {
  try {
    return readdirSync(`/proc/${pid}/task`).every((tid) =>
      ['T', 't'].includes(stateOf(`/proc/${pid}/task/${tid}/stat`)),
    )
  } catch {
    return undefined
  }
}

/**
 * SIGSTOP is delivered asynchronously: a thread busy when `kill` returns may still answer a request sent right after
 * (a test saw a read succeed from a "paused" node). Waits until every thread is stopped, at most 2 s; where /proc
 * cannot tell, 50 ms.
 */
export const pauseProcess = async (pid: number): Promise<void> => {
  process.kill(pid, 'SIGSTOP')
  const deadline = performance.now() + 2_000
  for (;;) {
    const stopped = allThreadsStopped(pid)
    if (stopped === undefined) {
      await sleep(50)
      return
    }
    if (stopped) return
    if (performance.now() > deadline) throw new Error(`anvil (pid ${pid}) did not stop within 2 s`)
    await sleep(1)
  }
}
