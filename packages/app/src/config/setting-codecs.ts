import * as E from 'fp-ts/lib/Either.js'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import * as t from 'io-ts'

// The codecs of settings: each reads the variable's text (trimmed) and names what it expects when it cannot.
export const fromString = <A>(name: string, parse: (s: string) => A | undefined) =>
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

export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  fromString(`an integer from ${min} to ${max}`, (s) => {
    if (!/^[0-9]+$/.test(s)) return undefined
    const n = Number(s)
    return n >= min && n <= max ? n : undefined
  })
export const wei = fromString('a whole number of wei', (s) => (/^[0-9]+$/.test(s) ? BigInt(s) : undefined))
export const tokenUnits = fromString("a whole number ≥ 1 of the token's smallest unit", (s) =>
  /^[0-9]+$/.test(s) && BigInt(s) >= 1n ? BigInt(s) : undefined,
)
export const url = (protocols: ReadonlyArray<string>) =>
  fromString(`a ${protocols.join(' or ')} URL`, (s) => {
    try {
      return protocols.includes(new URL(s).protocol.replace(':', '')) ? s : undefined
    } catch {
      return undefined
    }
  })
export const caip2 = fromString('an EVM CAIP-2 id, eip155:<chain id>', (s) =>
  /^eip155:[1-9][0-9]{0,18}$/.test(s) ? s : undefined,
)
export const text = fromString('a non-empty string', (s) => (s === '' ? undefined : s))
/** A bearer secret: long enough that guessing it is out of reach (its value is never echoed in a refusal). */
export const secretToken = fromString('a secret of at least 32 characters', (s) => (s.length >= 32 ? s : undefined))
const parseAddress = (s: string): Address | undefined =>
  /^0x[0-9a-fA-F]{40}$/.test(s) ? `0x${s.slice(2).toLowerCase()}` : undefined
export const address = fromString<Address>('a 0x-prefixed 20-byte hex address', parseAddress)
/** An address, or `none`: the contract is not deployed on this network. */
export const addressOrNone = fromString<Address | 'none'>('a 0x-prefixed 20-byte hex address, or none', (s) =>
  s === 'none' ? 'none' : parseAddress(s),
)
export const privateKey = fromString<Hex>('a 0x-prefixed 32-byte hex private key', (s) =>
  /^0x[0-9a-fA-F]{64}$/.test(s) ? `0x${s.slice(2)}` : undefined,
)
export const bool = fromString('true or false', (s) =>
  ['true', '1', 'yes'].includes(s.toLowerCase())
    ? true
    : ['false', '0', 'no'].includes(s.toLowerCase())
      ? false
      : undefined,
)
/**
 * `true` is one proxy (what it always meant), `false` none; else the count, so that the n-th address from the right is
 * the client's.
 */
export const proxyCount = fromString('true, false or the number of proxies in front of the service, 0 to 10', (s) => {
  const word = s.toLowerCase()
  if (word === 'true') return 1
  if (word === 'false') return 0
  return /^[0-9]{1,2}$/.test(s) && Number(s) <= 10 ? Number(s) : undefined
})
export const list = fromString('a comma-separated list', (s) => {
  const items = s
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  return items.length ? items : undefined
})
export const addressList = fromString<ReadonlyArray<Address>>(
  'a comma-separated list of 0x-prefixed 20-byte hex addresses',
  (s) => {
    const items = s
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
    const parsed = items
      .map((item) => address.decode(item))
      .flatMap((decoded) => (E.isRight(decoded) ? [decoded.right] : []))
    return items.length > 0 && parsed.length === items.length ? parsed : undefined
  },
)
/** A non-empty list of distinct words of `values`, comma-separated (`eip3009,permit2`). */
export const someOf = <A extends string>(values: ReadonlyArray<A>) =>
  fromString<ReadonlyArray<A>>(`a comma-separated list of ${values.join(', ')}, each once`, (s) => {
    const items = s.split(',').map((item) => item.trim())
    const known = items.flatMap((item) => values.filter((value) => value === item))
    return items.length > 0 && known.length === items.length && new Set(known).size === known.length ? known : undefined
  })
export const oneOf = <A extends string>(values: ReadonlyArray<A>) =>
  fromString(`one of ${values.join(', ')}`, (s) => values.find((v) => v === s))
