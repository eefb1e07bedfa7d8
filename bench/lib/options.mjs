// The benchmark's flags, each also as environment BENCH_<FLAG>: parsed and checked into one config object.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

const OPTIONS = {
  verify: { type: 'string', default: '2000', help: 'verify requests per run' },
  settle: { type: 'string', default: '1000', help: 'settle requests per run' },
  concurrency: { type: 'string', default: '32', help: 'requests in flight' },
  runs: {
    type: 'string',
    default: '1',
    help: 'whole runs back to back against the same service (RSS growth between them)',
  },
  warmup: {
    type: 'string',
    default: '3000',
    help: 'verify requests before measuring (the JIT is still compiling after 1,000)',
  },
  'settle-warmup': { type: 'string', default: '250', help: 'settle requests before measuring' },
  'batched-settle': {
    type: 'string',
    default: '3000',
    help: 'settle requests per run to the batched service (phase batched-settle)',
  },
  'batched-warmup': { type: 'string', default: '500', help: 'settle requests to the batched service before measuring' },
  'batched-concurrency': { type: 'string', default: '128', help: 'requests in flight in the batched-settle phase' },
  'batch-max-items': { type: 'string', default: '100', help: "the batched service's BATCH_MAX_ITEMS" },
  ceiling: { type: 'string', default: '1000', help: 'pre-signed transfers sent straight to the node for its ceiling' },
  inserts: { type: 'string', default: '5000', help: 'Postgres single-row inserts for its limit' },
  payers: { type: 'string', default: '8', help: 'funded payers the payments come from' },
  networks: {
    type: 'string',
    default: '1',
    help: 'networks served: 1, or 2 (two anvils, one service with NETWORKS; verify and settle, load split evenly)',
  },
  solana: {
    type: 'boolean',
    default: false,
    help:
      'also Solana `exact` on a local SVM, served by the same service: svm-verify after verify, svm-settle after ' +
      'settle (as many requests, the same concurrency; quoted as shares of their EVM counterparts)',
  },
  wallets: { type: 'string', default: '8', help: 'smart wallets (ERC-1271) the wallet-verify payments come from' },
  phases: {
    type: 'string',
    default: 'verify,wallet-verify,settle,batched-settle,limits,permit2,webhook-settle',
    help:
      'which phases to run (comma list; batched-settle also runs settle and the node ceiling, its yardsticks; ' +
      'permit2 runs verify and settle, beside which it is measured; webhook-settle runs settle, its yardstick)',
  },
  'log-level': {
    type: 'string',
    default: 'info',
    help: 'the service LOG_LEVEL (its output goes to bench/results/service.log)',
  },
  profile: {
    type: 'boolean',
    default: false,
    help: 'run the service with --cpu-prof and summarise its top self-time functions',
  },
  'no-save': { type: 'boolean', default: false, help: 'do not write bench/results/*.json' },
  strict: {
    type: 'boolean',
    default: false,
    help: 'exit 1 when a speed target is missed (a failed request or double charge always does)',
  },
  out: { type: 'string', default: path.join(BENCH_DIR, 'results'), help: 'results directory' },
  help: { type: 'boolean', default: false, help: 'this text' },
}

const usage = () =>
  [
    'npm run bench -- [flags]   (each flag also as environment BENCH_<FLAG>, e.g. BENCH_RUNS=3)',
    '',
    ...Object.entries(OPTIONS).map(
      ([name, o]) => `  --${name.padEnd(20)} ${o.help}${o.type === 'string' ? ` [${o.default}]` : ''}`,
    ),
    '',
    'Environment: RPC_URL (a dev node with an unlocked account: the demo token is deployed there; with ASSET_ADDRESS,',
    'FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS (comma list of funded payers) nothing is deployed), DATABASE_URL.',
    'Unset: a local anvil and an embedded Postgres of its own, both stopped at the end.',
    'BENCH_NODE_ARGS: extra node flags for the service (space-separated), e.g. "--single-threaded-gc" to try a V8 setting.',
  ].join('\n')

const PHASES = ['verify', 'wallet-verify', 'settle', 'batched-settle', 'limits', 'permit2', 'webhook-settle']

/**
 * The phases asked for. batched-settle is judged against the lone settle's gas and the node's ceiling of the same run,
 * so it brings the settle phase with it (the ceiling: bench/lib/run.mjs); permit2 is quoted as a share of EIP-3009's
 * verify and settle of the same run, so it brings both.
 */
const phasesOf = (list) => {
  const phases = new Set(
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  const unknown = [...phases].filter((p) => !PHASES.includes(p))
  if (unknown.length > 0) {
    console.error(`--phases: unknown ${unknown.join(', ')} (known: ${PHASES.join(', ')})`)
    process.exit(2)
  }
  if (phases.has('batched-settle') || phases.has('webhook-settle')) phases.add('settle')
  if (phases.has('permit2')) for (const yardstick of ['verify', 'settle']) phases.add(yardstick)
  return phases
}

/** The config of this invocation; `--help` prints the usage and exits 0, a bad number exits 2. */
export const readConfig = () => {
  const parsed = parseArgs({
    options: Object.fromEntries(Object.entries(OPTIONS).map(([k, o]) => [k, { type: o.type }])),
    strict: true,
  })
  const opt = (name) => {
    const env = process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`]
    return (
      parsed.values[name] ??
      (env !== undefined
        ? OPTIONS[name].type === 'boolean'
          ? env === '1' || env === 'true'
          : env
        : OPTIONS[name].default)
    )
  }
  if (opt('help')) {
    console.log(usage())
    process.exit(0)
  }
  const int = (name, min = 0) => {
    const v = Number(opt(name))
    if (!Number.isSafeInteger(v) || v < min) {
      console.error(`--${name}: expected an integer >= ${min}, got ${opt(name)}`)
      process.exit(2)
    }
    return v
  }
  const networks = int('networks', 1)
  if (networks > 2) {
    console.error(`--networks: 1 or 2, got ${networks}`)
    process.exit(2)
  }
  const phases = phasesOf(String(opt('phases')))
  // With two networks only verify and settle run (bench/lib/phases/*-networks.mjs); the rest is skipped, said at start.
  const skippedPhases = networks > 1 ? [...phases].filter((p) => p !== 'verify' && p !== 'settle') : []
  for (const p of skippedPhases) phases.delete(p)
  if (networks > 1 && phases.size === 0) {
    console.error('--networks 2 runs verify and settle only: none of them in --phases')
    process.exit(2)
  }
  // The Solana phases are measured beside their EVM counterparts, each right after it: at least one must run.
  const solana = Boolean(opt('solana'))
  if (solana && !phases.has('verify') && !phases.has('settle')) {
    console.error('--solana measures beside verify and settle: neither is in --phases')
    process.exit(2)
  }
  return {
    verify: int('verify'),
    settle: int('settle'),
    concurrency: int('concurrency', 1),
    runs: Math.min(int('runs', 1), 20),
    warmup: int('warmup'),
    settleWarmup: int('settle-warmup'),
    batchedSettle: int('batched-settle'),
    batchedWarmup: int('batched-warmup'),
    batchedConcurrency: int('batched-concurrency', 1),
    batchMaxItems: int('batch-max-items', 1),
    ceiling: int('ceiling'),
    inserts: int('inserts'),
    payers: int('payers', 1),
    wallets: int('wallets', 1),
    networks,
    phases,
    skippedPhases,
    solana,
    logLevel: String(opt('log-level')),
    profile: Boolean(opt('profile')),
    save: !opt('no-save'),
    strict: Boolean(opt('strict')),
    out: String(opt('out')),
  }
}
