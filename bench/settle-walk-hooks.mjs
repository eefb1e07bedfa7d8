// Module hooks for settle-walk.mjs: every function of the packages' built sources (packages/*/dist/src) announces
// its source file when it is entered (`globalThis.__settleWalk(file, named)`), so a walk can be recorded at run time.
// `named`: a function with a name of its own (a declaration, a const, a method, or the curried body of one), not a
// callback written in place (a pipe's next step, a `.then` or `.map` argument).
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

// Resolved from the repository in which the walk runs (acorn comes with the project's dev dependencies).
const fromRepo = createRequire(pathToFileURL(`${process.cwd()}/package.json`))
const { Parser } = await import(pathToFileURL(fromRepo.resolve('acorn')).href)
const { ancestor } = await import(pathToFileURL(fromRepo.resolve('acorn-walk')).href)

const BUILT_SOURCE = /\/packages\/([^/]+)\/dist\/src\/(.+)\.js$/

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  const match = BUILT_SOURCE.exec(url)
  if (!match || loaded.format !== 'module') return loaded
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source)
  const file = JSON.stringify(`packages/${match[1]}/src/${match[2]}.ts`)
  const edits = []
  const onFunction = (node, _state, ancestors) => {
    const enter = `globalThis.__settleWalk?.(${file}, ${isNamed(node, ancestors)})`
    if (node.body.type === 'BlockStatement') edits.push([node.body.start + 1, `${enter};`])
    else edits.push([node.body.start, `(${enter}, `], [node.body.end, ')'])
  }
  const ast = Parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module' })
  ancestor(ast, {
    FunctionDeclaration: onFunction,
    FunctionExpression: onFunction,
    ArrowFunctionExpression: onFunction,
  })
  edits.sort((a, b) => b[0] - a[0])
  let out = source
  for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at)
  return { ...loaded, source: out }
}

const NAMING_PARENTS = new Set([
  'VariableDeclarator',
  'Property',
  'MethodDefinition',
  'PropertyDefinition',
  'AssignmentExpression',
])

/** `ancestors` ends with `node` itself. */
const isNamed = (node, ancestors) => {
  if (node.type === 'FunctionDeclaration' || node.id) return true
  const parent = ancestors[ancestors.length - 2]
  if (parent === undefined) return false
  if (NAMING_PARENTS.has(parent.type)) return true
  // `const f = (a) => (b) => …`: the inner arrow is f's own body.
  return parent.type === 'ArrowFunctionExpression' && parent.body === node && isNamed(parent, ancestors.slice(0, -1))
}
