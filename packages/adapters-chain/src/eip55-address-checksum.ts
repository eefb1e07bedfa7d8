import type { AddressChecksum } from '@x402-facilitator/domain'
import { keccak256Bytes } from './keccak.js'

const encoder = new TextEncoder()

/** EIP-55: a hex letter is upper-cased when the matching nibble of keccak(lower-case hex address) is ≥ 8. */
export const makeEip55AddressChecksum = (): AddressChecksum => (lowerCaseAddress) => {
  const digits = lowerCaseAddress.slice(2).toLowerCase()
  const hash = keccak256Bytes(encoder.encode(digits))
  let out = '0x'
  for (let i = 0; i < digits.length; i++) {
    const byte = hash[i >> 1] ?? 0
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 15
    const c = digits[i]!
    out += nibble >= 8 ? c.toUpperCase() : c
  }
  return out
}
