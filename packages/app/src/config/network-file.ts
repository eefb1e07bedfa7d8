import * as E from 'fp-ts/lib/Either.js'
import { CHAIN_SETTINGS } from './chain-settings.js'

type ChainSetting = keyof typeof CHAIN_SETTINGS

/** A network's field in a configuration file, and the setting it stands for (docs/CONFIGURATION.md). */
const NETWORK_FIELDS = {
  name: 'NETWORK_ID',
  caip2: 'NETWORK_CAIP2',
  confirmations: 'CONFIRMATIONS',
  maxFeePerGas: 'MAX_FEE_PER_GAS',
  validityMarginSeconds: 'VALIDITY_MARGIN_SECONDS',
  headPollMs: 'HEAD_POLL_MS',
  minGasBalanceWei: 'MIN_GAS_BALANCE_WEI',
  multicall3: 'MULTICALL3_ADDRESS',
} as const satisfies Record<string, ChainSetting>
const TOKEN_FIELDS = {
  address: 'ASSET_ADDRESS',
  symbol: 'ASSET_SYMBOL',
  minAmount: 'MIN_AMOUNT',
  settler: 'SETTLER_ADDRESS',
} as const satisfies Record<string, ChainSetting>
/** Fields holding a list, beside the scalar ones above. */
const LIST_FIELDS = ['rpcUrls', 'tokens', 'erc6492Factories'] as const

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === 'object' && !Array.isArray(u)

/**
 * The `networks` list of a JSON configuration file, as the settings it stands for: every mistake on a line of its own,
 * naming where it was written (`networks[0].tokens[0].minAmount`), and never an RPC URL's text (providers put API keys
 * in them). This release serves one network, one RPC URL and one token: more are refused, each named.
 */
export const networkFileSettings = (networks: unknown, file: string): E.Either<string[], Record<string, string>> => {
  const errors: string[] = []
  const settings: Record<string, string> = {}
  const fail = (at: string, why: string) => errors.push(`configuration: ${file} ${at} ${why}`)

  /** One scalar, checked by its setting's own codec; numbers are taken as their decimal text. */
  const put = (at: string, setting: ChainSetting, value: unknown) => {
    const text =
      typeof value === 'string'
        ? value
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? String(value)
          : undefined
    if (text === undefined) return fail(at, `must be a string or a whole number (write large numbers as strings)`)
    const { codec } = CHAIN_SETTINGS[setting]
    if (E.isLeft(codec.decode(text))) return fail(at, `must be ${codec.name} (got ${JSON.stringify(value)})`)
    settings[setting] = text
  }

  const unknownFields = (at: string, object: Record<string, unknown>, known: ReadonlyArray<string>) => {
    for (const field of Object.keys(object))
      if (!known.includes(field)) fail(`${at}.${field}`, `is not a field of ${at} (known: ${known.join(', ')})`)
  }

  /** A non-empty list, of which this release takes the first item only. */
  const onlyItem = (at: string, value: unknown, what: string): unknown => {
    if (!Array.isArray(value) || value.length === 0) return void fail(at, `must be a non-empty list of ${what}`)
    if (value.length > 1) fail(at, `holds ${value.length} ${what}: this release takes one per network`)
    return value[0]
  }

  if (!Array.isArray(networks) || networks.length === 0) {
    fail('networks', 'must be a non-empty list of networks')
    return E.left(errors)
  }
  if (networks.length > 1) fail('networks', `holds ${networks.length} networks: this release serves one`)
  const network: unknown = networks[0]
  if (!isObject(network)) {
    fail('networks[0]', 'must be an object')
    return E.left(errors)
  }
  unknownFields('networks[0]', network, [...Object.keys(NETWORK_FIELDS), ...LIST_FIELDS])
  if (network.caip2 === undefined) fail('networks[0].caip2', 'is required (e.g. "eip155:8453")')
  for (const [field, setting] of Object.entries(NETWORK_FIELDS))
    if (network[field] !== undefined) put(`networks[0].${field}`, setting, network[field])

  const rpcUrl = onlyItem('networks[0].rpcUrls', network.rpcUrls, 'RPC URLs')
  if (rpcUrl !== undefined) {
    const { codec } = CHAIN_SETTINGS.RPC_URL
    if (typeof rpcUrl !== 'string' || E.isLeft(codec.decode(rpcUrl)))
      fail('networks[0].rpcUrls[0]', `must be ${codec.name}`)
    else settings.RPC_URL = rpcUrl
  }

  const token = onlyItem('networks[0].tokens', network.tokens, 'tokens')
  if (token !== undefined && !isObject(token)) fail('networks[0].tokens[0]', 'must be an object')
  else if (token !== undefined) {
    unknownFields('networks[0].tokens[0]', token, Object.keys(TOKEN_FIELDS))
    if (token.address === undefined) fail('networks[0].tokens[0].address', 'is required')
    for (const [field, setting] of Object.entries(TOKEN_FIELDS))
      if (token[field] !== undefined) put(`networks[0].tokens[0].${field}`, setting, token[field])
  }

  const factories = network.erc6492Factories
  if (factories !== undefined) {
    if (!Array.isArray(factories)) fail('networks[0].erc6492Factories', 'must be a list of addresses')
    else if (factories.length > 0) put('networks[0].erc6492Factories', 'ERC6492_FACTORIES', factories.join(','))
  }
  return errors.length > 0 ? E.left(errors) : E.right(settings)
}
