// /proc readings for a process: CPU time (utime + stime, every thread of the process) and memory (VmRSS, VmHWM).
import { readFileSync, readdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'

let ticksPerSecond = 100
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
} catch {
  // 100 on every Linux this runs on
}

/** The fields of a /proc/…/stat file after the command name: f[0] = state (field 3), so utime (field 14) is f[11]. */
const statFieldsOf = (file) => {
  const stat = readFileSync(file, 'utf8')
  // The command name (field 2) may hold spaces and parentheses: fields start after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}
const statFields = (pid) => statFieldsOf(`/proc/${pid}/stat`)

/** VmRSS and VmHWM (peak RSS) in MiB. */
export const memory = (pid) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 }
  } catch {
    return { rssMiB: NaN, hwmMiB: NaN }
  }
}

/** A process and all its descendants (e.g. the postmaster and its backends). */
export const processTree = (rootPid) => {
  const children = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(statFields(entry)[1])
      if (!children.has(ppid)) children.set(ppid, [])
      children.get(ppid).push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  const out = []
  const queue = [rootPid]
  while (queue.length > 0 && out.length < 10_000) {
    const pid = queue.shift()
    out.push(pid)
    queue.push(...(children.get(pid) ?? []))
  }
  return out
}

/** CPU ms of a process (utime + stime) and of its children that ended and were reaped (cutime + cstime: fields 16 and 17). */
const cpuWithReapedMs = (pid) => {
  try {
    const f = statFields(pid)
    return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / ticksPerSecond
  } catch {
    return undefined
  }
}

/**
 * CPU ms of a whole process tree, summed; a process that ended meanwhile counts through its parent once reaped (the
 * postmaster reaps its backends), so the sum never goes backwards when one exits.
 */
export const treeCpuMs = (rootPid) => processTree(rootPid).reduce((sum, pid) => sum + (cpuWithReapedMs(pid) ?? 0), 0)

/** CPU ms of several groups at once: { name: pid | undefined } → { name: ms }. */
export const cpuSnapshot = (groups) => {
  const out = {}
  for (const [name, pid] of Object.entries(groups)) {
    if (pid === undefined) continue
    out[name] = name === 'bench' ? (process.cpuUsage().user + process.cpuUsage().system) / 1000 : treeCpuMs(pid)
  }
  return out
}

export const cpuDelta = (before, after) =>
  Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]))

/** CPU ms per thread name of a process (main thread, libuv workers, V8 workers…), for the report's diagnosis. */
export const threadCpuMs = (pid) => {
  const out = {}
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
        // Node names every thread "node": tell the main (JavaScript) thread from the others (GC, libuv, compiler).
        const name = Number(tid) === Number(pid) ? 'main' : comm === 'node' ? 'other' : comm
        const f = statFieldsOf(`/proc/${pid}/task/${tid}/stat`)
        // utime (field 14) + stime (field 15)
        out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / ticksPerSecond
      } catch {
        // gone
      }
    }
  } catch {
    // gone
  }
  return out
}
