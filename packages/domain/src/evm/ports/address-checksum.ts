/**
 * EIP-55 mixed-case checksum of a lower-case address (`0x` + 40 hex). Keccak is crypto, which the domain
 * leaves to an adapter; the codecs take this function to check mixed-case addresses.
 */
export type AddressChecksum = (lowerCaseAddress: string) => string
