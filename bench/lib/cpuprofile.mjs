// Summarises a V8 .cpuprofile: self time per function (summed over every node of that function), top first.
// Sample timestamps are CLOCK_MONOTONIC microseconds, the clock of process.hrtime in any process of this machine, so
// a profile of the whole service can be cut to the window of one measured phase.
import { readFileSync } from 'node:fs'

export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

const shorten = (url) =>
  (url || '')
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, 'node_modules/')
    .replace(/^.*\/packages\//, 'packages/')

export const summariseProfile = (file, { top = 20, window } = {}) => {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const selfUs = new Map()
  const { samples = [], timeDeltas = [] } = profile
  let t = profile.startTime
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i] ?? 0
    if (window && (t < window.startUs || t > window.endUs)) continue
    // The time up to the next sample belongs to the node sampled at i.
    const us = timeDeltas[i + 1] ?? 0
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + us)
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0)
  let idle = 0
  const byFunction = new Map()
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)
    if (callFrame.functionName === '(idle)') idle += us
    const url = shorten(callFrame.url)
    const key = `${callFrame.functionName || '(anonymous)'} ${url}${url ? `:${callFrame.lineNumber + 1}` : ''}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + us)
  }
  const byPackage = new Map()
  for (const [key, us] of byFunction) {
    const m = /(node_modules\/(?:@[^/]+\/)?[^/:]+|packages\/[^/]+|node:[^ :/]+)/.exec(key)
    const pkg = m ? m[1] : key.startsWith('(') ? key.slice(0, key.indexOf(')') + 1) : 'native / node internals'
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us)
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, share: Math.round((1000 * us) / total) / 10 }))
  return {
    file,
    window: window?.name,
    totalMs: Math.round(total / 1000),
    busyMs: Math.round((total - idle) / 1000),
    functions: rank(byFunction),
    packages: rank(byPackage),
  }
}
