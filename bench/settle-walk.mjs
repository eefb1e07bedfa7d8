#!/usr/bin/env node
// One settle's walk through the code, measured at run time: the source files a settle request enters, in order, and
// how often it comes back to one. Run from the repository's root after `npm run build`:
//   node bench/settle-walk.mjs [--batching] [--list]
// Each function of packages/*/dist/src announces its file when entered (settle-walk-hooks.mjs); what runs on behalf of
// the recorded request (its async context) is kept. The files: every file a function of which ran. The walk: the files
// in the order named functions (not callbacks written in place) are entered; a "re-entry" is a file the walk comes
// back to after it left it.
import { AsyncLocalStorage } from 'node:async_hooks'
import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { register } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

register('./settle-walk-hooks.mjs', import.meta.url)
const root = process.cwd()
const SETTLE_USE_CASE = 'packages/domain/src/use-cases/settle/settle-payment.ts'
const batching = process.argv.includes('--batching')
const walks = new AsyncLocalStorage()
globalThis.__settleWalk = (file, named) => {
  const walk = walks.getStore()
  if (walk === undefined) return
  walk.files.add(file)
  if (named && walk.steps.at(-1) !== file) walk.steps.push(file)
  if (named && calledBackFrom(file) !== undefined) walk.callbacks.push(`${calledBackFrom(file)} → ${file}`)
}

const BUILT = /\/packages\/([^/]+)\/dist\/src\/([^:]+)\.js:/
/**
 * The file that called back into `file` while a function of `file` is still on the call stack beneath it (a callback
 * handed down, or an import cycle); undefined for a plain call, or a continuation of `file`'s own pipeline resumed by
 * a promise.
 */
const calledBackFrom = (file) => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 200
  const stack = new Error().stack ?? ''
  Error.stackTraceLimit = limit
  const files = stack.split('\n').flatMap((line) => {
    const match = BUILT.exec(line)
    return match ? [`packages/${match[1]}/src/${match[2]}.ts`] : []
  })
  // files[0] is the function just entered, in `file`.
  const caller = files.slice(1).find((f) => f !== file)
  if (caller === undefined) return undefined
  return files.slice(files.indexOf(caller)).includes(file) ? caller : undefined
}
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, request, ...rest) {
  if (event === 'request' && request.headers['x-settle-walk'] !== undefined) {
    const walk = { files: new Set(), steps: [], callbacks: [] }
    request.on('close', () => process.emit('settle-walk', walk))
    return walks.run(walk, () => emit.call(this, event, request, ...rest))
  }
  return emit.call(this, event, request, ...rest)
}

const support = await import(pathToFileURL(path.join(root, 'packages/app/dist/test/support/test-facilitator.js')).href)
const env = batching ? support.BATCHING_ON : {}
console.error('starting the facilitator…')
const app = await support.startTestFacilitator({ ...env, LOG_LEVEL: 'silent' })
try {
  // Warm-up: the first settles load modules and fill caches that one settle of a running service does not meet.
  for (const payer of [1, 2]) {
    const warm = await app.post('settle', await app.payment({ payer }))
    if (warm.status !== 200) throw new Error(`warm-up settle answered ${warm.status}: ${JSON.stringify(warm.body)}`)
  }
  const recorded = new Promise((resolve) => process.once('settle-walk', resolve))
  const answer = await app.post('settle', await app.payment({ payer: 0 }), { 'x-settle-walk': '1' })
  if (answer.status !== 200) throw new Error(`settle answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  report(await recorded)
} finally {
  await app.stop()
}
// What start-up left behind (the node, the database's pool timers) must not keep a finished walk running.
process.exit(0)

function report({ files, steps: walk, callbacks }) {
  const layerOf = (file) => file.split('/')[1]
  const distinct = [...files]
  const entries = new Map()
  for (const file of walk) entries.set(file, (entries.get(file) ?? 0) + 1)
  const reEntries = walk.length - new Set(walk).size
  const perLayer = {}
  for (const file of distinct) perLayer[layerOf(file)] = (perLayer[layerOf(file)] ?? 0) + 1
  if (process.argv.includes('--list')) {
    console.log('files in the order first entered (times the walk enters them):')
    for (const file of distinct) console.log(`  ${file} (${entries.get(file) ?? 0})`)
    console.log('\nthe walk, file by file:')
    console.log(walk.map((f) => `  ${f}`).join('\n'))
  }
  const layers = Object.entries(perLayer)
    .map(([layer, n]) => `${layer} ${n}`)
    .join(', ')
  console.log(
    `one settle${batching ? ' (batching on)' : ''}: ${distinct.length} distinct files (${layers}); the walk: ${walk.length} entries, ${reEntries} re-entries`,
  )
  console.log(
    `called back while still on the stack: ${callbacks.length}${callbacks.length ? ` (${[...new Set(callbacks)].join('; ')})` : ''}`,
  )
  const most = [...entries]
    .filter(([, n]) => n > 1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
  console.log(`entered most: ${most.map(([f, n]) => `${path.basename(f)} ×${n}`).join(', ')}`)
  const switches = walk.filter((file, i) => i > 0 && layerOf(file) !== layerOf(walk[i - 1])).length
  const appEntries = new Map([...entries].filter(([file]) => layerOf(file) === 'app'))
  console.log(
    `package switches: ${switches}; app files entered: ${appEntries.size}${appEntries.size ? ` (${[...appEntries].map(([f, n]) => `${path.basename(f)} ×${n}`).join(', ')})` : ''}`,
  )
  const reached = reachableByImports(SETTLE_USE_CASE)
  const lines = reached.reduce((sum, file) => sum + readFileSync(path.join(root, file), 'utf8').split('\n').length, 0)
  console.log(`files the settle use case reaches by imports: ${reached.length} (${lines} lines)`)
}

/** The project's source files reachable from `start` through relative imports (`import … from './x.js'`, type-only too). */
function reachableByImports(start) {
  const seen = new Set([start])
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()
    const source = readFileSync(path.join(root, file), 'utf8')
    for (const [, spec] of source.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
      const target = path.join(path.dirname(file), spec.replace(/\.js$/, '.ts'))
      if (!seen.has(target) && existsSync(path.join(root, target))) {
        seen.add(target)
        queue.push(target)
      }
    }
  }
  return [...seen]
}
