// The result of the benchmark as JSON: bench/results/<date>.json, copied to latest.json.
import { copyFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { round, say } from '../basics.mjs'

/** The machine the figures come from. */
export const machine = () => ({
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  memoryGiB: round(os.totalmem() / 2 ** 30, 1),
  os: `${os.type()} ${os.release()}`,
  node: process.version,
  hostname: os.hostname(),
})

/** Writes `result` to `<out>/<started, to the second>.json` and `<out>/latest.json`. */
export const saveResult = (out, started, result) => {
  const file = path.join(out, `${started.toISOString().slice(0, 19).replace(/[:T]/g, '-')}.json`)
  const latest = path.join(out, 'latest.json')
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  copyFileSync(file, latest)
  say(`\nwritten: ${path.relative(process.cwd(), file)} and ${path.relative(process.cwd(), latest)}`)
}
