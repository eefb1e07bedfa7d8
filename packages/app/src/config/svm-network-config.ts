import * as E from 'fp-ts/lib/Either.js'
import { BASE58_ADDRESS } from '@x402-facilitator/domain'

/** One Solana token (an SPL mint) a network settles. */
export interface SvmTokenConfig {
  readonly mint: string
  readonly symbol: string
  readonly decimals: number
  /** The smallest amount settled, in the mint's smallest unit [1]. */
  readonly minAmount: bigint
}

/** One Solana network: its CAIP-2 id (its name too), its RPC URLs in order, its tokens, its own fee payer keys. */
export interface SvmNetworkConfig {
  readonly caip2: string
  readonly rpcUrls: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<SvmTokenConfig>
  /** Fee payer secrets (a key file's JSON array, or base58): a network's own (`feePayerKeysFile`), else the service's. */
  readonly feePayerKeysFile?: string
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Whether a `networks` entry is a Solana network's (its caip2 names the `solana` namespace). */
export const isSolanaEntry = (entry: unknown): boolean =>
  isObject(entry) && typeof entry.caip2 === 'string' && entry.caip2.startsWith('solana:')

const NETWORK_KEYS = ['caip2', 'rpcUrls', 'tokens', 'feePayerKeysFile']
const TOKEN_KEYS = ['address', 'symbol', 'decimals', 'minAmount']

/**
 * Solana `networks` entries (`{ caip2, rpcUrls, tokens: [{ address, symbol, decimals, minAmount }], feePayerKeysFile }`),
 * every mistake on a line naming where it was written, never an RPC URL's text.
 */
export const svmNetworkEntries = (
  entries: ReadonlyArray<unknown>,
  origin: string,
): E.Either<string, SvmNetworkConfig[]> => {
  const errors: string[] = []
  const fail = (at: string, why: string) => errors.push(`configuration: ${origin} ${at} ${why}`)
  const unknown = (at: string, object: Record<string, unknown>, known: ReadonlyArray<string>) => {
    for (const key of Object.keys(object))
      if (!known.includes(key)) fail(`${at}.${key}`, `is not a field (known: ${known.join(', ')})`)
  }
  const networks = entries.flatMap((entry, i): SvmNetworkConfig[] => {
    const at = `solana networks[${i}]`
    if (!isObject(entry)) {
      fail(at, 'must be an object')
      return []
    }
    unknown(at, entry, NETWORK_KEYS)
    const caip2 = entry.caip2
    if (typeof caip2 !== 'string' || !/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/.test(caip2))
      fail(`${at}.caip2`, 'must be solana:<the first 32 characters of its genesis hash>')
    const rpcUrls = Array.isArray(entry.rpcUrls) ? entry.rpcUrls : []
    if (rpcUrls.length === 0) fail(`${at}.rpcUrls`, 'must be a non-empty list of RPC URLs')
    rpcUrls.forEach((url, j) => {
      if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url))
        fail(`${at}.rpcUrls[${j}]`, 'must be an http(s) URL')
    })
    const tokens = Array.isArray(entry.tokens) ? entry.tokens : []
    if (tokens.length === 0) fail(`${at}.tokens`, 'must be a non-empty list of tokens')
    const parsed = tokens.flatMap((token, j): SvmTokenConfig[] => {
      const where = `${at}.tokens[${j}]`
      if (!isObject(token)) {
        fail(where, 'must be an object')
        return []
      }
      unknown(where, token, TOKEN_KEYS)
      const { address, symbol, decimals, minAmount = '1' } = token
      if (typeof address !== 'string' || !BASE58_ADDRESS.test(address))
        fail(`${where}.address`, 'must be a base58 mint address')
      if (typeof symbol !== 'string' || symbol === '') fail(`${where}.symbol`, 'must be a non-empty string')
      if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 18)
        fail(`${where}.decimals`, 'must be a whole number from 0 to 18')
      const min = typeof minAmount === 'string' || typeof minAmount === 'number' ? String(minAmount) : ''
      if (!/^[1-9][0-9]*$/.test(min))
        fail(`${where}.minAmount`, "must be a whole number ≥ 1 of the mint's smallest unit")
      return errors.length > 0
        ? []
        : [{ mint: address as string, symbol: symbol as string, decimals: decimals as number, minAmount: BigInt(min) }]
    })
    const keysFile = entry.feePayerKeysFile
    if (keysFile !== undefined && (typeof keysFile !== 'string' || keysFile === ''))
      fail(`${at}.feePayerKeysFile`, 'must be a file path')
    return errors.length > 0
      ? []
      : [
          {
            caip2: caip2 as string,
            rpcUrls: rpcUrls as string[],
            tokens: parsed,
            ...(keysFile === undefined ? {} : { feePayerKeysFile: keysFile as string }),
          },
        ]
  })
  const twice = networks.findIndex((n, i) => networks.findIndex((m) => m.caip2 === n.caip2) !== i)
  if (twice !== -1)
    fail(`solana networks[${twice}].caip2`, `names ${networks[twice]!.caip2} twice: one entry per chain`)
  return errors.length > 0 ? E.left(errors.join('\n')) : E.right(networks)
}

/** Every Solana network configured: `SOLANA_NETWORKS`, and the `solana:` entries of `NETWORKS`. */
export const configuredSvmNetworks = (
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, SvmNetworkConfig[]> => {
  const listOf = (name: string): E.Either<string, unknown[]> => {
    const raw = env[name]
    if (raw === undefined || raw === '') return E.right([])
    try {
      const parsed: unknown = JSON.parse(raw)
      return Array.isArray(parsed) ? E.right(parsed) : E.left(`configuration: ${name} must be a JSON list of networks`)
    } catch {
      return E.left(`configuration: ${name} must be JSON: a list of networks (docs/CONFIGURATION.md)`)
    }
  }
  const own = listOf('SOLANA_NETWORKS')
  const shared = listOf('NETWORKS')
  if (E.isLeft(own)) return own
  if (E.isLeft(shared)) return E.right([])
  return svmNetworkEntries([...own.right, ...shared.right.filter(isSolanaEntry)], 'networks')
}
