// After a run: the service's RSS at rest, the lowest over BENCH_REST_MS (15 idle seconds unless given). V8 hands
// memory back after about 10; a single reading lands anywhere between two garbage collections (±20 % here, run to
// run); what a leak raises is the floor.
import { round, say, sleep } from '../basics.mjs'
import { memory } from '../proc.mjs'

/** The run's `serviceMemory`: { rssMiB (lowest), hwmMiB (peak, VmHWM) }. */
export const measureRestMemory = async ({ service }) => {
  let atRest = memory(service.pid)
  for (let waited = 0; waited < Number(process.env.BENCH_REST_MS ?? 15_000); waited += 250) {
    await sleep(250)
    const now = memory(service.pid)
    if (now.rssMiB < atRest.rssMiB) atRest = { ...now, hwmMiB: Math.max(now.hwmMiB, atRest.hwmMiB) }
  }
  const serviceMemory = Object.fromEntries(Object.entries(atRest).map(([k, v]) => [k, round(v, 1)]))
  say(`  service RSS at rest ${serviceMemory.rssMiB} MiB (peak ${serviceMemory.hwmMiB} MiB)`)
  return serviceMemory
}
