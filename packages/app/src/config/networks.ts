import type { Hex } from '@x402-facilitator/domain'
import * as A from 'fp-ts/lib/Array.js'
import * as E from 'fp-ts/lib/Either.js'
import { facilitatorKeys } from '../facilitator-keys.js'
import { CHAIN_SETTINGS } from './chain-settings.js'
import { NETWORK_FIELDS, networkEntries, TOKEN_FIELDS, type NetworkEntry } from './network-file.js'
import { isSolanaEntry } from './svm-network-config.js'

/** One configured network: what its settings change of the process-wide ones, its RPC URLs and its tokens. */
export interface ConfiguredNetwork<C> {
  /** Its decoded network settings (`NETWORK_ID`, `CONFIRMATIONS`, …): what differs from the flat settings. */
  readonly settings: Partial<C>
  readonly rpcUrls: ReadonlyArray<string>
  /** Each token's decoded settings (`ASSET_ADDRESS`, `ASSET_SYMBOL`, `MIN_AMOUNT`, `SETTLER_ADDRESS`). */
  readonly tokens: ReadonlyArray<Partial<C>>
  /** Its own signing keys (`keysFile`); unset: the service's. */
  readonly facilitatorKeys?: ReadonlyArray<Hex>
}

/**
 * Settings that belong to one network or one token: with `NETWORKS`, written in it, never beside it. The key file is
 * the service's beside them, a network's own in it (`keysFile`).
 */
const PER_NETWORK = [
  'RPC_URL',
  ...Object.values(NETWORK_FIELDS).filter((name) => name !== 'FACILITATOR_PRIVATE_KEYS_FILE'),
  ...Object.values(TOKEN_FIELDS),
] as const

const decoded = <C>(settings: Readonly<Record<string, string>>): Partial<C> =>
  Object.fromEntries(
    Object.entries(settings).map(([name, text]) => {
      const value: E.Either<unknown, unknown> = CHAIN_SETTINGS[name as keyof typeof CHAIN_SETTINGS].codec.decode(text)
      // networkEntries checked each with the same codec.
      return [name, E.isRight(value) ? value.right : undefined]
    }),
  ) as Partial<C>

const configuredOf = <C>(entry: NetworkEntry, at: string): E.Either<string, ConfiguredNetwork<C>> => {
  const file = entry.settings.FACILITATOR_PRIVATE_KEYS_FILE
  const keys = file === undefined ? E.right(undefined) : facilitatorKeys({ FACILITATOR_PRIVATE_KEYS_FILE: file })
  if (E.isLeft(keys)) return E.left(keys.left.replace('configuration: ', `configuration: ${at}.keysFile: `))
  return E.right({
    settings: decoded<C>(entry.settings),
    rpcUrls: entry.rpcUrls,
    tokens: entry.tokens.map((token) => decoded<C>(token)),
    ...(keys.right && { facilitatorKeys: keys.right }),
  })
}

/**
 * The networks served: `NETWORKS` (a config file's `networks`, or the variable) decoded; else `RPC_URL` and today's
 * settings as the one network with one token (its `settings` empty: the flat ones are its own); none in dev mode.
 */
export const configuredNetworks = <C>(
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, ReadonlyArray<ConfiguredNetwork<C>>> => {
  const raw = env.NETWORKS
  if (raw === undefined || raw === '') {
    const rpcUrl = env.RPC_URL
    return E.right(rpcUrl === undefined || rpcUrl === '' ? [] : [{ settings: {}, rpcUrls: [rpcUrl], tokens: [{}] }])
  }
  const beside = PER_NETWORK.filter((name) => env[name] !== undefined && env[name] !== '')
  if (beside.length > 0)
    return E.left(
      `configuration: ${beside.join(', ')} set beside NETWORKS (or a config file's networks): ` +
        'each belongs in its network or token there',
    )
  let list: unknown
  try {
    list = JSON.parse(raw)
  } catch {
    return E.left('configuration: NETWORKS must be JSON: a list of networks (docs/CONFIGURATION.md)')
  }
  // Solana's entries are its own (svm/svm-network-config.ts).
  const evm = Array.isArray(list) ? list.filter((entry) => !isSolanaEntry(entry)) : list
  if (Array.isArray(evm) && evm.length === 0 && Array.isArray(list) && list.length > 0) return E.right([])
  const entries = networkEntries(evm, 'NETWORKS')
  if (E.isLeft(entries)) return E.left(entries.left.join('\n'))
  return A.sequence(E.Applicative)(entries.right.map((entry, i) => configuredOf<C>(entry, `NETWORKS networks[${i}]`)))
}

/** The settings one (network, token) is composed with: the flat ones, then its network's, then its token's. */
export const routeSettings = <C>(config: C, network: ConfiguredNetwork<C>, token: Partial<C>): C => ({
  ...config,
  ...network.settings,
  RPC_URL: network.rpcUrls[0],
  ...token,
})
