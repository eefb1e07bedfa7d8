import * as E from 'fp-ts/lib/Either.js'
import type { Address, Hex } from '@x402-facilitator/domain'
import * as t from 'io-ts'
import { facilitatorKeys, type KeySettings } from './facilitator-keys.js'

const fromString = <A>(name: string, parse: (s: string) => A | undefined) =>
  new t.Type<A, string, unknown>(
    name,
    (_u): _u is A => false,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c)
      const parsed = parse(u.trim())
      return parsed === undefined ? t.failure(u, c) : t.success(parsed)
    },
    String,
  )

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  fromString(`an integer from ${min} to ${max}`, (s) => {
    if (!/^[0-9]+$/.test(s)) return undefined
    const n = Number(s)
    return n >= min && n <= max ? n : undefined
  })
const wei = fromString('a whole number of wei', (s) => (/^[0-9]+$/.test(s) ? BigInt(s) : undefined))
const tokenUnits = fromString("a whole number ≥ 1 of the token's smallest unit", (s) => (/^[0-9]+$/.test(s) && BigInt(s) >= 1n ? BigInt(s) : undefined))
const url = (protocols: ReadonlyArray<string>) =>
  fromString(`a ${protocols.join(' or ')} URL`, (s) => {
    try {
      return protocols.includes(new URL(s).protocol.replace(':', '')) ? s : undefined
    } catch {
      return undefined
    }
  })
const text = fromString('a non-empty string', (s) => (s === '' ? undefined : s))
const address = fromString<Address>('a 0x-prefixed 20-byte hex address', (s) => (/^0x[0-9a-fA-F]{40}$/.test(s) ? `0x${s.slice(2).toLowerCase()}` : undefined))
const privateKey = fromString<Hex>('a 0x-prefixed 32-byte hex private key', (s) => (/^0x[0-9a-fA-F]{64}$/.test(s) ? `0x${s.slice(2)}` : undefined))
const bool = fromString('true or false', (s) => (['true', '1', 'yes'].includes(s.toLowerCase()) ? true : ['false', '0', 'no'].includes(s.toLowerCase()) ? false : undefined))
/** `true` is one proxy (what it always meant), `false` none; else the count, so that the n-th address from the right is the client's. */
const proxyCount = fromString('true, false or the number of proxies in front of the service, 0 to 10', (s) => {
  const word = s.toLowerCase()
  if (word === 'true') return 1
  if (word === 'false') return 0
  return /^[0-9]{1,2}$/.test(s) && Number(s) <= 10 ? Number(s) : undefined
})
const list = fromString('a comma-separated list', (s) => {
  const items = s.split(',').map((item) => item.trim()).filter((item) => item !== '')
  return items.length ? items : undefined
})
const addressList = fromString<ReadonlyArray<Address>>('a comma-separated list of 0x-prefixed 20-byte hex addresses', (s) => {
  const items = s.split(',').map((item) => item.trim()).filter((item) => item !== '')
  const parsed = items.map((item) => address.decode(item)).flatMap((decoded) => (E.isRight(decoded) ? [decoded.right] : []))
  return items.length > 0 && parsed.length === items.length ? parsed : undefined
})
const oneOf = <A extends string>(values: ReadonlyArray<A>) =>
  fromString(`one of ${values.join(', ')}`, (s) => values.find((v) => v === s))

/** Every setting: its codec, default and meaning (docs/ARCHITECTURE.md §6). `--help` prints this table. */
export const SETTINGS = {
  PORT: { codec: integer(0, 65535), default: '4021', help: 'listen port' },
  HOST: { codec: text, default: '127.0.0.1', help: 'listen address' },
  RPC_URL: { codec: url(['http', 'https']), default: undefined, help: 'EVM JSON-RPC endpoint; unset: dev mode (local anvil, demo token, funded payers)' },
  NETWORK_ID: { codec: text, default: undefined, help: 'network string of the spec dialect [eip155:<chainId>]' },
  ASSET_ADDRESS: { codec: address, default: undefined, help: 'the EIP-3009 token (required with RPC_URL)' },
  ASSET_SYMBOL: { codec: text, default: undefined, help: 'symbol reported by /supported [read from the token]' },
  FACILITATOR_PRIVATE_KEY: { codec: privateKey, default: undefined, help: 'the account that submits and pays gas (with RPC_URL, it or FACILITATOR_PRIVATE_KEYS is required)' },
  FACILITATOR_PRIVATE_KEYS: { codec: text, default: undefined, help: 'comma-separated keys of a key pool: one signing lane each, settles go to the least loaded (after FACILITATOR_PRIVATE_KEY when both are set)' },
  FACILITATOR_PRIVATE_KEYS_FILE: { codec: text, default: undefined, help: 'a file of pool keys, one per line (# comments); with the two above, all count' },
  DATABASE_URL: { codec: url(['postgres', 'postgresql']), default: undefined, help: 'Postgres; unset: embedded Postgres in DATA_DIR/postgres' },
  DATA_DIR: { codec: text, default: '.data', help: 'where dev mode keeps its embedded Postgres' },
  CONFIRMATIONS: { codec: integer(0, 64), default: undefined, help: 'finality depth: a settlement is final once this many blocks are on top of its own [by chain id, see docs/CONFIGURATION.md; 1 on anvil]' },
  SETTLE_WAIT_FOR: { codec: oneOf(['receipt', 'final'] as const), default: 'receipt', help: 'settle answers success at the first receipt, or only once the settlement is final (bounded by RECEIPT_TIMEOUT_SECONDS)' },
  HEAD_POLL_MS: { codec: integer(10, 60_000), default: undefined, help: 'how often the finality watcher reads the chain head [1000; 100 on anvil]' },
  MAX_FEE_PER_GAS: { codec: wei, default: undefined, help: 'fee cap in wei, a hard bound [3 x the latest base fee + the tip]' },
  RPC_TIMEOUT_MS: { codec: integer(100, 120_000), default: '10000', help: 'bound on every RPC call; past it: 503' },
  DB_TIMEOUT_MS: { codec: integer(100, 120_000), default: '5000', help: 'bound on every journal call; past it: 503' },
  RECEIPT_TIMEOUT_SECONDS: { codec: integer(1, 3600), default: '30', help: 'longest a settle waits for its receipt (then 202 settlement_pending)' },
  MIN_AMOUNT: { codec: tokenUnits, default: '1', help: "smallest required amount settled, in the token's smallest unit (verify rule 5b)" },
  VALIDITY_MARGIN_SECONDS: { codec: integer(0, 3600), default: undefined, help: 'validBefore must be later than now + this [two blocks of the chain, measured at start-up, at least 6]' },
  RECEIPT_MODE: { codec: oneOf(['watcher', 'sync'] as const), default: 'watcher', help: 'how receipts are awaited: one block watcher, or EIP-7966 sync send' },
  RECOVERY_INTERVAL_MS: { codec: integer(100, 3_600_000), default: '10000', help: 'how often unfinished settlements are reconciled' },
  REPLACE_AFTER_MS: { codec: integer(100, 3_600_000), default: '15000', help: 'an unmined transaction this old gets a replacement with raised fees' },
  CLAIM_TIMEOUT_MS: { codec: integer(100, 3_600_000), default: '30000', help: 'a claim with nothing signed this old is released by recovery' },
  UNSETTLEABLE_AFTER_MS: {
    codec: integer(0, 86_400_000),
    default: '600000',
    help: 'a reorged settlement the token refuses this long (and 3 times) ends unsettleable; an expired one after the 3 tries',
  },
  HEADERS_TIMEOUT_MS: { codec: integer(100, 600_000), default: '10000', help: 'a client must send its request headers within this' },
  REQUEST_TIMEOUT_MS: { codec: integer(100, 600_000), default: '30000', help: 'a client must send its whole request within this' },
  KEEP_ALIVE_TIMEOUT_MS: { codec: integer(100, 600_000), default: '5000', help: 'an idle keep-alive connection is closed after this' },
  SHUTDOWN_GRACE_MS: { codec: integer(0, 600_000), default: '10000', help: 'how long shutdown waits for settles in flight' },
  ERC6492_FACTORIES: { codec: addressList, default: undefined, help: 'wallet factories a settle may call to deploy an ERC-6492 payer (it pays that gas); unset: none, such payers are refused [dev mode: the demo factory]' },
  MULTICALL3_ADDRESS: { codec: address, default: '0xcA11bde05977b3631167028862bE2a173976CA11', help: 'Multicall3, through which an ERC-6492 payer is deployed and paid in one transaction' },
  SETTLER_ADDRESS: { codec: address, default: undefined, help: 'with RPC_URL: the BatchSettler (npm run deploy-settler) through which payments are settled in batches; unset: one transaction per payment. Refused in dev mode, which deploys its own' },
  BATCH_MAX_ITEMS: { codec: integer(1, 500), default: '100', help: 'the most payments one settler call carries' },
  BATCH_WINDOW_MS: { codec: integer(0, 2_000), default: '25', help: 'while a transaction of ours waits for its block, how long a settle may wait for others to share its settler call (none in flight: it goes at once)' },
  PAYER_PENALTY_SECONDS: { codec: integer(1, 86_400), default: '600', help: 'how long a payer whose batch item ran out of gas is not batched, and a payer contract whose own transaction reverted is refused (payer_suspended); also the window of CONTRACT_PAYER_LOST_GAS_BUDGET' },
  CONTRACT_PAYER_LONE_LOST_GAS_BUDGET: { codec: wei, default: '5000000', help: 'gas lost to reverted lone transactions of payer contracts (each may burn its trial cap, ≈ 1 000 000) per PAYER_PENALTY_SECONDS past which no payer contract is sent at all (contract_payer_gas_budget_spent)' },
  CONTRACT_PAYER_LOST_GAS_BUDGET: { codec: wei, default: '3000000', help: 'gas lost to payer contracts (failed batch items, reverted transactions) per PAYER_PENALTY_SECONDS past which every payer contract goes alone, never batched' },
  BATCHING: { codec: oneOf(['on', 'off'] as const), default: 'on', help: 'off: no settler, one transaction per payment (dev mode deploys none, SETTLER_ADDRESS is not used)' },
  DEMO_PAYERS: { codec: integer(1, 100), default: '5', help: 'dev mode: how many funded demo payers' },
  API_KEYS: { codec: list, default: undefined, help: 'comma-separated API keys; set: verify, settle and lookups need Authorization: Bearer <key>' },
  API_KEYS_FILE: { codec: text, default: undefined, help: 'a file of API keys, one per line (with API_KEYS, both count)' },
  ALLOW_OPEN: { codec: bool, default: 'false', help: 'with RPC_URL: serve verify and settle without API keys (anyone may make the facilitator spend gas)' },
  RATE_LIMIT: { codec: integer(0, 1_000_000), default: undefined, help: 'verify+settle requests per client per window; 0: off [1000; off in dev mode]' },
  RATE_LIMIT_WINDOW_SECONDS: { codec: integer(1, 86_400), default: '1', help: 'the rate limit window' },
  TRUST_PROXY: { codec: proxyCount, default: 'false', help: 'how many proxies you trust in front of the service: the client address is the n-th of X-Forwarded-For from the right (what the client wrote left of it is ignored); true: one, false: none' },
  CORS_ORIGINS: { codec: list, default: undefined, help: 'origins allowed by CORS; unset: CORS off' },
  PROBE_REFRESH_MS: { codec: integer(100, 600_000), default: '5000', help: 'how often /readyz and the gauges of /metrics re-read the chain and the database (in the background: a scrape reads nothing)' },
  MIN_GAS_BALANCE_WEI: { codec: wei, default: '10000000000000000', help: '/readyz fails below this facilitator balance' },
  LOG_LEVEL: { codec: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), default: 'info', help: 'pino log level' },
} as const

type Settings = typeof SETTINGS
export type Config = {
  readonly [K in keyof Settings]: Settings[K]['default'] extends string
    ? t.TypeOf<Settings[K]['codec']>
    : t.TypeOf<Settings[K]['codec']> | undefined
} & {
  /** The signing keys of the three key settings, in order (facilitator-keys.ts); none in dev mode unless set. */
  readonly facilitatorKeys: ReadonlyArray<Hex>
}

/** Decodes the environment once; the first bad or missing variable is named in one line. */
export const loadConfig = (env: Readonly<Record<string, string | undefined>>): E.Either<string, Config> => {
  const config: Record<string, unknown> = {}
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const raw = env[name] === '' ? undefined : (env[name] ?? setting.default)
    if (raw === undefined) continue
    const decoded = setting.codec.decode(raw)
    if (E.isLeft(decoded)) {
      return E.left(`configuration: ${name} must be ${setting.codec.name}${name.includes('KEY') ? '' : ` (got "${raw}")`}`)
    }
    config[name] = decoded.right
  }
  const keys = facilitatorKeys(config as KeySettings)
  if (E.isLeft(keys)) return keys
  config.facilitatorKeys = keys.right
  if (config.RPC_URL !== undefined) {
    if (config.ASSET_ADDRESS === undefined) return E.left('configuration: ASSET_ADDRESS is required when RPC_URL is set')
    if (keys.right.length === 0) return E.left('configuration: FACILITATOR_PRIVATE_KEY (or FACILITATOR_PRIVATE_KEYS / FACILITATOR_PRIVATE_KEYS_FILE) is required when RPC_URL is set')
  }
  // Dev mode starts a fresh chain, where no settler was deployed before: it deploys its own (docs/ARCHITECTURE.md §5.7).
  if (config.RPC_URL === undefined && config.SETTLER_ADDRESS !== undefined) {
    return E.left('configuration: SETTLER_ADDRESS needs RPC_URL: dev mode deploys its own settler (BATCHING=off for none)')
  }
  if (config.API_KEYS_FILE === undefined) {
    const open = openRefusal(config, Array.isArray(config.API_KEYS) ? config.API_KEYS.length : 0)
    if (open !== undefined) return E.left(open)
  }
  // Filled name by name from SETTINGS, each value decoded by its own codec: a `Config`, though the compiler cannot follow it.
  return E.right(config as Config)
}

/**
 * docs/ARCHITECTURE.md §6: a facilitator on a real chain spends its own gas for whoever calls it, so it does not run
 * without API keys unless the operator says so. Dev mode (no `RPC_URL`) stays open.
 */
export const openRefusal = (config: Readonly<Record<string, unknown>>, apiKeyCount: number): string | undefined =>
  config.RPC_URL !== undefined && apiKeyCount === 0 && config.ALLOW_OPEN !== true
    ? 'configuration: no API keys with RPC_URL set: set API_KEYS or API_KEYS_FILE, or ALLOW_OPEN=true to let anyone make this facilitator spend gas'
    : undefined

export const helpText = (): string =>
  [
    'x402 facilitator: settings come from the environment (or --config FILE; the environment wins).',
    '',
    ...Object.entries(SETTINGS).map(([name, s]) => `  ${name.padEnd(24)} ${s.help}${s.default === undefined ? '' : ` [${s.default}]`}`),
  ].join('\n')
