import type { Authorization, Eip712Domain } from '@x402-facilitator/domain'
import { domainSeparator, keccak256, toBytes } from 'viem'
import { hexToBytesStrict, keccak256Bytes, writeHex, writeUint256 } from '../hex-bytes.js'

export const TRANSFER_WITH_AUTHORIZATION_TYPE =
  'TransferWithAuthorization(address from,address to,uint256 value,' +
  'uint256 validAfter,uint256 validBefore,bytes32 nonce)'

const TYPE_HASH = toBytes(keccak256(toBytes(TRANSFER_WITH_AUTHORIZATION_TYPE)))

/** The EIP-712 digest of an authorization, or why it cannot be encoded (a field out of range). */
export type AuthorizationDigest = (authorization: Authorization) => Uint8Array | string

/**
 * EIP-712 digest of `TransferWithAuthorization` over one token's domain. The domain separator and type hash are fixed
 * per token, so they are computed here once; per call only the struct hash (7 static words) and the digest remain.
 */
export const makeTransferAuthorizationDigest = (domain: Eip712Domain): AuthorizationDigest => {
  const separator = hexToBytesStrict(
    domainSeparator({
      domain: {
        name: domain.name,
        version: domain.version,
        chainId: domain.chainId,
        verifyingContract: domain.verifyingContract,
      },
    }),
  )!
  return (a) => {
    const struct = new Uint8Array(7 * 32)
    struct.set(TYPE_HASH, 0)
    if (!writeHex(struct, 32, 32, a.from) || a.from.length !== 42) return 'from is not an address'
    if (!writeHex(struct, 64, 32, a.to) || a.to.length !== 42) return 'to is not an address'
    if (!writeUint256(struct, 96, a.value)) return 'value out of uint256 range'
    if (!writeUint256(struct, 128, a.validAfter)) return 'validAfter out of uint256 range'
    if (!writeUint256(struct, 160, a.validBefore)) return 'validBefore out of uint256 range'
    if (!writeHex(struct, 192, 32, a.nonce) || a.nonce.length !== 66) return 'nonce is not bytes32'
    const message = new Uint8Array(66)
    message[0] = 0x19
    message[1] = 0x01
    message.set(separator, 2)
    message.set(keccak256Bytes(struct), 34)
    return keccak256Bytes(message)
  }
}
