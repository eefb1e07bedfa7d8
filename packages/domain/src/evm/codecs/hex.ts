import * as t from 'io-ts'
import type { AddressChecksum } from '../ports/address-checksum.js'
import type { EvmAddress as Address, Bytes32, Hex } from '../model/evm-hex.js'
import { matchesHex } from './canonical.js'
import { UINT256_MAX } from './scalars.js'

const isAddressText = matchesHex(/^0x[0-9a-fA-F]{40}$/)
const isBytes32Text = matchesHex(/^0x[0-9a-fA-F]{64}$/)
/** The largest signature accepted [8 KiB]: smart-wallet signatures (ERC-1271, ERC-6492) are longer than 65 bytes. */
export const MAX_SIGNATURE_BYTES = 8192
const isSignatureText = matchesHex(new RegExp(`^0x(?:[0-9a-fA-F]{2}){1,${MAX_SIGNATURE_BYTES}}$`))
const DECIMAL = /^(0|[1-9][0-9]*)$/

const isString = (u: unknown): u is string => typeof u === 'string'
/** The canonical form: lower case (the `0x` of `Hex` already is). */
const lower = (hex: Hex): Hex => `0x${hex.slice(2).toLowerCase()}`

/** All-lower or all-upper hex carries no checksum; anything else must be valid EIP-55. */
const isMixedCase = (hexDigits: string) =>
  hexDigits !== hexDigits.toLowerCase() && hexDigits !== hexDigits.toUpperCase()

/** `0x` + 40 hex; mixed case must be a valid EIP-55 checksum. Canonical: lower case. */
export const makeAddressCodec = (checksum: AddressChecksum) =>
  new t.Type<Address, string, unknown>(
    'a 0x-prefixed 20-byte hex address',
    isAddressText,
    (u, c) => {
      if (!isAddressText(u)) return t.failure(u, c)
      const canonical = lower(u)
      if (isMixedCase(u.slice(2)) && checksum(canonical) !== u) {
        return t.failure(u, c, 'mixed-case address fails its EIP-55 checksum')
      }
      return t.success(canonical)
    },
    (a) => a,
  )

const toBytes32 = (n: bigint): Bytes32 => `0x${n.toString(16).padStart(64, '0')}`

/**
 * The EIP-3009 nonce: a JSON safe integer ≥ 0, a decimal string below 2^256, or `0x` + 64 hex. Canonical: bytes32.
 */
export const Nonce = new t.Type<Bytes32, string, unknown>(
  'a nonce (non-negative integer, decimal string or 0x-prefixed 32-byte hex)',
  isBytes32Text,
  (u, c) => {
    if (typeof u === 'number') {
      return Number.isSafeInteger(u) && u >= 0 ? t.success(toBytes32(BigInt(u))) : t.failure(u, c)
    }
    if (!isString(u)) return t.failure(u, c)
    if (isBytes32Text(u)) return t.success(lower(u))
    if (!DECIMAL.test(u)) return t.failure(u, c)
    const n = BigInt(u)
    return n <= UINT256_MAX ? t.success(toBytes32(n)) : t.failure(u, c)
  },
  (n) => n,
)

/**
 * Any whole bytes up to `MAX_SIGNATURE_BYTES`: a payer's 65-byte r‖s‖v, or a smart wallet's signature of any
 * length. Whether it is a valid signature of the payer (length, v, low s, recovery or ERC-1271) is rule 7's business,
 * answered as a refusal, not a malformed body.
 */
export const Signature = new t.Type<Hex, string, unknown>(
  `a 0x-prefixed signature of 1 to ${MAX_SIGNATURE_BYTES} bytes`,
  isSignatureText,
  (u, c) => (isSignatureText(u) ? t.success(lower(u)) : t.failure(u, c)),
  (s) => s,
)
