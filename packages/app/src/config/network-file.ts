import * as E from 'fp-ts/lib/Either.js'
import { CHAIN_SETTINGS } from './chain-settings.js'

type ChainSetting = keyof typeof CHAIN_SETTINGS

/** A network's field in a configuration file, and the setting it stands for (docs/CONFIGURATION.md). */
export const NETWORK_FIELDS = {
  name: 'NETWORK_ID',
  caip2: 'NETWORK_CAIP2',
  confirmations: 'CONFIRMATIONS',
  maxFeePerGas: 'MAX_FEE_PER_GAS',
  validityMarginSeconds: 'VALIDITY_MARGIN_SECONDS',
  headPollMs: 'HEAD_POLL_MS',
  stallReplaceMs: 'STALL_REPLACE_MS',
  minGasBalanceWei: 'MIN_GAS_BALANCE_WEI',
  multicall3: 'MULTICALL3_ADDRESS',
  erc6492Factories: 'ERC6492_FACTORIES',
  permit2: 'PERMIT2_ADDRESS',
  exactPermit2Proxy: 'EXACT_PERMIT2_PROXY_ADDRESS',
  uptoPermit2Proxy: 'UPTO_PERMIT2_PROXY_ADDRESS',
  /** This network's own signing keys, a file of one key a line; unset: the service's keys. */
  keysFile: 'FACILITATOR_PRIVATE_KEYS_FILE',
} as const satisfies Record<string, ChainSetting>
export const TOKEN_FIELDS = {
  address: 'ASSET_ADDRESS',
  symbol: 'ASSET_SYMBOL',
  minAmount: 'MIN_AMOUNT',
  settler: 'SETTLER_ADDRESS',
  transferMethods: 'TRANSFER_METHODS',
} as const satisfies Record<string, ChainSetting>

export type NetworkSetting = (typeof NETWORK_FIELDS)[keyof typeof NETWORK_FIELDS]
export type TokenSetting = (typeof TOKEN_FIELDS)[keyof typeof TOKEN_FIELDS]

/** One network of the list, as the text of the settings it stands for (each checked by its setting's codec). */
export interface NetworkEntry {
  readonly settings: Partial<Record<NetworkSetting, string>>
  readonly rpcUrls: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<Partial<Record<TokenSetting, string>>>
}

/** Settings a file may write as a JSON list of strings. */
const LISTS: ReadonlyArray<ChainSetting> = ['ERC6492_FACTORIES', 'TRANSFER_METHODS']

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === 'object' && !Array.isArray(u)

/**
 * The `networks` list of a JSON configuration file (or of `NETWORKS`): every mistake on a line of its own, naming where
 * it was written (`networks[0].tokens[0].minAmount`), and never an RPC URL's text (providers put API keys in them).
 */
export const networkEntries = (networks: unknown, origin: string): E.Either<string[], NetworkEntry[]> => {
  const errors: string[] = []
  const fail = (at: string, why: string) => errors.push(`configuration: ${origin} ${at} ${why}`)

  /** One scalar, checked by its setting's own codec; numbers are taken as their decimal text. */
  const textOf = (at: string, setting: ChainSetting, value: unknown): string | undefined => {
    const text =
      typeof value === 'string'
        ? value
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? String(value)
          : Array.isArray(value) && LISTS.includes(setting) && value.every((item) => typeof item === 'string')
            ? value.join(',')
            : undefined
    if (text === undefined) return void fail(at, `must be a string or a whole number (write large numbers as strings)`)
    const { codec } = CHAIN_SETTINGS[setting]
    if (E.isLeft(codec.decode(text))) return void fail(at, `must be ${codec.name} (got ${JSON.stringify(value)})`)
    return text
  }

  const fieldsOf = <F extends Record<string, ChainSetting>>(at: string, object: Record<string, unknown>, fields: F) => {
    const settings: Partial<Record<F[keyof F], string>> = {}
    for (const [field, setting] of Object.entries(fields) as Array<[string, F[keyof F]]>) {
      // An empty factory list is none, as an unset ERC6492_FACTORIES is.
      const none = Array.isArray(object[field]) && object[field].length === 0 && setting === 'ERC6492_FACTORIES'
      if (object[field] === undefined || none) continue
      const text = textOf(`${at}.${field}`, setting, object[field])
      if (text !== undefined) settings[setting] = text
    }
    return settings
  }

  const unknownFields = (at: string, object: Record<string, unknown>, known: ReadonlyArray<string>) => {
    for (const field of Object.keys(object))
      if (!known.includes(field)) fail(`${at}.${field}`, `is not a field of ${at} (known: ${known.join(', ')})`)
  }

  const listOf = (at: string, value: unknown, what: string): unknown[] => {
    if (Array.isArray(value) && value.length > 0) return value
    fail(at, `must be a non-empty list of ${what}`)
    return []
  }

  const rpcUrlsOf = (at: string, value: unknown): string[] =>
    listOf(at, value, 'RPC URLs').flatMap((url, i) => {
      const { codec } = CHAIN_SETTINGS.RPC_URL
      if (typeof url === 'string' && E.isRight(codec.decode(url))) return [url]
      fail(`${at}[${i}]`, `must be ${codec.name}`)
      return []
    })

  const tokensOf = (at: string, value: unknown) =>
    listOf(at, value, 'tokens').flatMap((token, i) => {
      if (!isObject(token)) {
        fail(`${at}[${i}]`, 'must be an object')
        return []
      }
      unknownFields(`${at}[${i}]`, token, Object.keys(TOKEN_FIELDS))
      if (token.address === undefined) fail(`${at}[${i}].address`, 'is required')
      return [fieldsOf(`${at}[${i}]`, token, TOKEN_FIELDS)]
    })

  if (!Array.isArray(networks) || networks.length === 0) {
    fail('networks', 'must be a non-empty list of networks')
    return E.left(errors)
  }
  const entries = networks.flatMap((network: unknown, i): NetworkEntry[] => {
    const at = `networks[${i}]`
    if (!isObject(network)) {
      fail(at, 'must be an object')
      return []
    }
    unknownFields(at, network, [...Object.keys(NETWORK_FIELDS), 'rpcUrls', 'tokens'])
    if (network.caip2 === undefined) fail(`${at}.caip2`, 'is required (e.g. "eip155:8453")')
    const settings = fieldsOf(at, network, NETWORK_FIELDS)
    return [
      {
        settings,
        rpcUrls: rpcUrlsOf(`${at}.rpcUrls`, network.rpcUrls),
        tokens: tokensOf(`${at}.tokens`, network.tokens),
      },
    ]
  })
  if (errors.length === 0) errors.push(...crossChecks(entries).map((line) => `configuration: ${origin} ${line}`))
  return errors.length > 0 ? E.left(errors) : E.right(entries)
}

/** What no single field shows: a network or token named twice, a settler shared by two tokens. */
const crossChecks = (entries: ReadonlyArray<NetworkEntry>): string[] => {
  const lines: string[] = []
  const twice = (
    values: ReadonlyArray<string | undefined>,
    line: (value: string, first: number, again: number) => string,
  ) =>
    values.forEach((value, i) => {
      const first = values.findIndex((v) => v !== undefined && v.toLowerCase() === value?.toLowerCase())
      if (value !== undefined && first !== i) lines.push(line(value, first, i))
    })
  const names = entries.map((e) => e.settings.NETWORK_ID ?? e.settings.NETWORK_CAIP2)
  twice(
    names,
    (name, a, b) => `networks[${b}] is named "${name}" as networks[${a}] is: each network needs its own name`,
  )
  twice(
    entries.map((e) => e.settings.NETWORK_CAIP2),
    (caip2, a, b) => `networks[${b}].caip2 is ${caip2} as networks[${a}]'s is: one entry per chain`,
  )
  entries.forEach((entry, n) => {
    twice(
      entry.tokens.map((t) => t.ASSET_ADDRESS),
      (address, a, b) => `networks[${n}].tokens[${b}] is ${address} as tokens[${a}] is: list a token once`,
    )
    twice(
      entry.tokens.map((t) => t.SETTLER_ADDRESS),
      (settler, a, b) =>
        `networks[${n}].tokens[${b}].settler is ${settler} as tokens[${a}]'s is: a settler is bound to one token`,
    )
  })
  return lines
}
