import * as E from 'fp-ts/lib/Either.js'
import type { Hex } from '@x402-facilitator/domain'
import * as t from 'io-ts'
import { CHAIN_SETTINGS } from './config/chain-settings.js'
import { configuredNetworks, type ConfiguredNetwork } from './config/networks.js'
import { SERVICE_SETTINGS } from './config/service-settings.js'
import { attestationKeyRefusal } from './attestation-key.js'
import { WEBHOOK_SETTINGS } from './config/webhook-settings.js'
import { SOLANA_SETTINGS } from './config/solana-settings.js'
import { DISCOVERY_SETTINGS } from './config/discovery-settings.js'
import { configuredSvmNetworks, type SvmNetworkConfig } from './config/svm-network-config.js'
import { facilitatorKeys, type KeySettings } from './facilitator-keys.js'

/** Every setting: its codec, default and meaning (docs/CONFIGURATION.md). `--help` prints this table. */
export const SETTINGS = {
  ...CHAIN_SETTINGS,
  ...SOLANA_SETTINGS,
  ...SERVICE_SETTINGS,
  ...WEBHOOK_SETTINGS,
  ...DISCOVERY_SETTINGS,
} as const

type Settings = typeof SETTINGS
export type Config = {
  readonly [K in keyof Settings]: Settings[K]['default'] extends string
    ? t.TypeOf<Settings[K]['codec']>
    : t.TypeOf<Settings[K]['codec']> | undefined
} & {
  /** The signing keys of the three key settings, in order (facilitator-keys.ts); none in dev mode unless set. */
  readonly facilitatorKeys: ReadonlyArray<Hex>
  /** The networks served, each with its tokens (config/networks.ts); none in dev mode, which starts its own. */
  readonly networks: ReadonlyArray<ConfiguredNetwork<Config>>
  /** The Solana networks served (svm/svm-network-config.ts); in dev mode, the local one it starts unless SOLANA_DEV=false. */
  readonly svmNetworks: ReadonlyArray<SvmNetworkConfig>
}

/** No network configured: dev mode starts local chains in their place. */
export const isDevMode = (config: Pick<Config, 'networks'>): boolean => config.networks.length === 0

/** Decodes the environment once; the first bad or missing variable is named in one line. */
export const loadConfig = (env: Readonly<Record<string, string | undefined>>): E.Either<string, Config> => {
  const config: Record<string, unknown> = {}
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const raw = env[name] === '' ? undefined : (env[name] ?? setting.default)
    if (raw === undefined) continue
    const decoded = setting.codec.decode(raw)
    if (E.isLeft(decoded)) {
      return E.left(
        `configuration: ${name} must be ${setting.codec.name}${/KEY|TOKEN|WEBHOOKS/.test(name) ? '' : ` (got "${raw}")`}`,
      )
    }
    config[name] = decoded.right
  }
  const keys = facilitatorKeys(config as KeySettings)
  if (E.isLeft(keys)) return keys
  config.facilitatorKeys = keys.right
  const networks = configuredNetworks<Config>(env)
  if (E.isLeft(networks)) return networks
  config.networks = networks.right
  const svmNetworks = configuredSvmNetworks(env)
  if (E.isLeft(svmNetworks)) return svmNetworks
  config.svmNetworks = svmNetworks.right
  if (svmNetworks.right.length > 0 && networks.right.length === 0)
    return E.left('configuration: a Solana network is served beside at least one EVM network (RPC_URL or NETWORKS)')
  if (networks.right.length > 0) {
    if (env.NETWORKS === undefined && config.ASSET_ADDRESS === undefined)
      return E.left('configuration: ASSET_ADDRESS is required when RPC_URL is set')
    if (keys.right.length === 0 && networks.right.some((network) => network.facilitatorKeys === undefined))
      return E.left(
        'configuration: FACILITATOR_PRIVATE_KEY (or FACILITATOR_PRIVATE_KEYS / FACILITATOR_PRIVATE_KEYS_FILE) ' +
          'is required when RPC_URL is set',
      )
  }
  const attestation = attestationKeyRefusal(config as Config)
  if (attestation !== undefined) return E.left(attestation)
  // Dev mode starts a fresh chain, where no settler was deployed before: it deploys its own (docs/ARCHITECTURE.md
  // §5.7).
  if (networks.right.length === 0 && config.SETTLER_ADDRESS !== undefined) {
    return E.left(
      'configuration: SETTLER_ADDRESS needs RPC_URL: dev mode deploys its own settler (BATCHING=off for none)',
    )
  }
  if (config.API_KEYS_FILE === undefined) {
    const open = openRefusal(config as Config, Array.isArray(config.API_KEYS) ? config.API_KEYS.length : 0)
    if (open !== undefined) return E.left(open)
  }
  // Filled name by name from SETTINGS, each value decoded by its own codec: a `Config`, though the compiler cannot
  // follow it.
  return E.right(config as Config)
}

/**
 * docs/ARCHITECTURE.md §6: a facilitator on a real chain spends its own gas for whoever calls it, so it does not run
 * without API keys unless the operator says so. Dev mode (no `RPC_URL`) stays open.
 */
export const openRefusal = (
  config: Pick<Config, 'networks' | 'ALLOW_OPEN'>,
  apiKeyCount: number,
): string | undefined =>
  !isDevMode(config) && apiKeyCount === 0 && config.ALLOW_OPEN !== true
    ? 'configuration: no API keys on a real network (RPC_URL or networks set): set API_KEYS or API_KEYS_FILE, or ' +
      'ALLOW_OPEN=true to let ' +
      'anyone make this facilitator spend gas'
    : undefined

export const helpText = (): string =>
  [
    'x402 facilitator: settings come from the environment (or --config FILE; the environment wins).',
    '',
    ...Object.entries(SETTINGS).map(
      ([name, s]) => `  ${name.padEnd(24)} ${s.help}${s.default === undefined ? '' : ` [${s.default}]`}`,
    ),
  ].join('\n')
