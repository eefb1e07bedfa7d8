// Compiles the vendored Permit2 (test-fixtures/permit2) and x402's two Permit2 proxies
// (test-fixtures/x402-permit2-proxies), exactly as upstream (see each SOURCE.md), each with the solc version and the
// settings of its own repository's foundry.toml, into test-fixtures/generated/<suite>.ts: per contract the ABI as an
// `as const` literal, the creation and runtime bytecode and where its immutables sit (a deployment on anvil copies the
// runtime code of a CREATE-deployed instance to the canonical address: src/testing/permit2-suite-deployment.ts).
// A suite is skipped when its output is newer than every one of its sources and this script.
import { createRequire } from 'node:module'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)

const suites = [
  {
    // Uniswap/permit2 foundry.toml: solc 0.8.17 (Permit2.sol's pragma pins it), via-IR, 1 000 000 runs, no metadata hash.
    name: 'permit2',
    solc: 'solc-0.8.17',
    settings: { viaIR: true, optimizer: { enabled: true, runs: 1_000_000 }, metadata: { bytecodeHash: 'none' } },
    wanted: { 'src/Permit2.sol': 'Permit2' },
  },
  {
    // coinbase/x402 contracts/evm/foundry.toml: solc 0.8.28, 200 runs, no CBOR metadata (deterministic bytecode).
    name: 'x402-permit2-proxies',
    solc: 'solc-0.8.28',
    settings: {
      optimizer: { enabled: true, runs: 200 },
      metadata: { bytecodeHash: 'none', appendCBOR: false },
    },
    wanted: {
      'src/x402ExactPermit2Proxy.sol': 'x402ExactPermit2Proxy',
      'src/x402UptoPermit2Proxy.sol': 'x402UptoPermit2Proxy',
    },
  },
]

const solidityFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? solidityFiles(join(dir, entry.name))
      : entry.name.endsWith('.sol')
        ? [join(dir, entry.name)]
        : [],
  )

/** The names of the state variables the AST declares, by node id: solc keys immutable references by those ids. */
const declaredNamesOf = (output) => {
  const names = new Map()
  const collect = (node) => {
    if (Array.isArray(node)) return node.forEach(collect)
    if (node === null || typeof node !== 'object') return
    if (node.nodeType === 'VariableDeclaration' && node.stateVariable) names.set(String(node.id), node.name)
    Object.values(node).forEach(collect)
  }
  for (const source of Object.values(output.sources ?? {})) collect(source.ast)
  return names
}

const compileSuite = ({ name, solc: solcPackage, settings, wanted }) => {
  const sourceDir = join(root, 'test-fixtures', name)
  const outFile = join(root, 'test-fixtures', 'generated', `${name}.ts`)
  const files = solidityFiles(sourceDir)
  const newest = Math.max(statSync(fileURLToPath(import.meta.url)).mtimeMs, ...files.map((f) => statSync(f).mtimeMs))
  if (existsSync(outFile) && statSync(outFile).mtimeMs > newest) return console.log(`${name}: up to date`)

  // Source unit names are the paths inside the fixture, so upstream's relative, `solmate/` and `@openzeppelin/`
  // imports resolve as they are.
  const solc = require(solcPackage)
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(files.map((f) => [relative(sourceDir, f), { content: readFileSync(f, 'utf8') }])),
    settings: {
      ...settings,
      outputSelection: {
        '*': {
          '': ['ast'],
          '*': [
            'abi',
            'evm.bytecode.object',
            'evm.deployedBytecode.object',
            'evm.deployedBytecode.immutableReferences',
          ],
        },
      },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  for (const e of errors) console.error(e.formattedMessage)
  if (errors.length > 0) process.exit(1)

  const declaredNames = declaredNamesOf(output)
  const camel = (contractName) => contractName[0].toLowerCase() + contractName.slice(1)
  const exports = Object.entries(wanted).map(([file, contractName]) => {
    const contract = output.contracts[file]?.[contractName]
    if (!contract) throw new Error(`${name}: ${file} does not define ${contractName}`)
    const immutables = Object.fromEntries(
      Object.entries(contract.evm.deployedBytecode.immutableReferences ?? {}).map(([id, ranges]) => [
        declaredNames.get(id) ?? id,
        ranges,
      ]),
    )
    const id = camel(contractName)
    return (
      `export const ${id}Abi = ${JSON.stringify(contract.abi, null, 2)} as const\n\n` +
      `export const ${id}Bytecode = '0x${contract.evm.bytecode.object}' as const\n\n` +
      `export const ${id}DeployedBytecode = '0x${contract.evm.deployedBytecode.object}' as const\n\n` +
      `export const ${id}Immutables = ${JSON.stringify(immutables)} as const\n`
    )
  })
  mkdirSync(dirname(outFile), { recursive: true })
  writeFileSync(
    outFile,
    `// Generated by scripts/compile-permit2.mjs from test-fixtures/${name} (solc ${solc.version()}). Do not edit.\n` +
      exports.join('\n'),
  )
  console.log(`${name}: compiled ${Object.values(wanted).join(', ')}`)
}

for (const suite of suites) compileSuite(suite)
