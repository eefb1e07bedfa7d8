import { spawn, type ChildProcess } from 'node:child_process'
import { availableParallelism } from 'node:os'

/**
 * One spinning process per core, as CI and a shared machine see it; each also stops by itself after `maxSeconds`
 * should the test die first. Resolves once every one of them is running; `stop` kills them.
 */
export const keepCoresBusy = async (maxSeconds = 300): Promise<{ stop: () => void }> => {
  const spin =
    `process.stdout.write('spinning\\n'); const end = Date.now() + ${maxSeconds * 1000}; let x = 0; while ` +
    `(Date.now() < end) x = (x * 31 + 7) % 1000003`
  const children: ChildProcess[] = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', spin], { stdio: ['ignore', 'pipe', 'ignore'] }),
  )
  await Promise.all(children.map((child) => new Promise((resolve) => child.stdout!.once('data', resolve))))
  return { stop: () => children.forEach((child) => child.kill('SIGKILL')) }
}
