// The bench and container scripts are plain JavaScript that `tsc -b` never sees: a name they import from a workspace
// package that the package no longer exports fails only when the script runs (CI's image step did, once). Run after
// the build: each named import from @x402-facilitator/* must be an export of that entry point.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const roots = ['bench', 'scripts']
const scriptsUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'results' ? [] : scriptsUnder(path)
    return /\.m?js$/.test(entry.name) ? [path] : []
  })

const namedImports = /import\s*\{([^}]*)\}\s*from\s*'(@x402-facilitator\/[^']+)'/g
const missing = []
for (const file of roots.flatMap(scriptsUnder)) {
  for (const [, names, specifier] of readFileSync(file, 'utf8').matchAll(namedImports)) {
    const exported = await import(specifier)
    for (const name of names.split(',').map((part) => part.trim().split(/\s+as\s+/)[0])) {
      if (name && !(name in exported)) missing.push(`${file}: '${specifier}' exports no ${name}`)
    }
  }
}
if (missing.length > 0) {
  console.error(missing.join('\n'))
  process.exit(1)
}
