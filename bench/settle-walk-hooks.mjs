// Module hooks for settle-walk.mjs: every function of the packages' built sources (packages/*/dist/src) announces
// its source file when it is entered (`globalThis.__settleWalk(file)`), so a walk can be recorded at run time.
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

// Resolved from the repository in which the walk runs (acorn comes with the project's dev dependencies).
const fromRepo = createRequire(pathToFileURL(`${process.cwd()}/package.json`))
const { Parser } = await import(pathToFileURL(fromRepo.resolve('acorn')).href)
const { simple } = await import(pathToFileURL(fromRepo.resolve('acorn-walk')).href)

const BUILT_SOURCE = /\/packages\/([^/]+)\/dist\/src\/(.+)\.js$/

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  const match = BUILT_SOURCE.exec(url)
  if (!match || loaded.format !== 'module') return loaded
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source)
  const file = JSON.stringify(`packages/${match[1]}/src/${match[2]}.ts`)
  const enter = `globalThis.__settleWalk?.(${file})`
  const edits = []
  const onFunction = (node) => {
    if (node.body.type === 'BlockStatement') edits.push([node.body.start + 1, `${enter};`])
    else edits.push([node.body.start, `(${enter}, `], [node.body.end, ')'])
  }
  const ast = Parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module' })
  simple(ast, { FunctionDeclaration: onFunction, FunctionExpression: onFunction, ArrowFunctionExpression: onFunction })
  edits.sort((a, b) => b[0] - a[0])
  let out = source
  for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at)
  return { ...loaded, source: out }
}
