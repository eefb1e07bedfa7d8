import type { AddressChecksum } from '@x402-facilitator/domain'
import { checksumAddress } from 'viem'
import { isHexString } from '../hex-bytes.js'

/**
 * EIP-55 through viem's `checksumAddress` (off the hot path: the codecs check mixed-case addresses only). The codecs
 * hand over `0x` + 40 hex digits; a string without `0x` is no address and comes back as it is.
 */
export const makeEip55AddressChecksum = (): AddressChecksum => (lowerCaseAddress) =>
  isHexString(lowerCaseAddress) ? checksumAddress(lowerCaseAddress) : lowerCaseAddress
