import type { Address, Hex } from '@x402-facilitator/domain'
import secp256k1 from 'secp256k1'
import { serializeTransaction, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { bytesToHex, hexToBytesStrict } from './hex-bytes.js'
import { keccak256Bytes } from './keccak.js'

export interface SignedTransaction {
  readonly hash: Hex
  readonly raw: Hex
}

export interface TransactionSigner {
  readonly address: Address
  readonly sign: (transaction: TransactionSerializableEIP1559) => SignedTransaction
}

/**
 * Serialises with viem and signs the hash with libsecp256k1 (RFC 6979, low s): measured ≈ 3× faster than viem's
 * `signTransaction`, whose JS signing dominates a settle's CPU time.
 */
export const makeSecp256k1TransactionSigner = (privateKey: Hex): TransactionSigner => {
  const key = hexToBytesStrict(privateKey)
  if (!key || key.length !== 32 || !secp256k1.privateKeyVerify(key)) throw new Error('the facilitator private key is not a secp256k1 key')
  return {
    address: privateKeyToAddress(privateKey).toLowerCase() as Address,
    sign: (transaction) => {
      const unsigned = hexToBytesStrict(serializeTransaction(transaction))!
      const { signature, recid } = secp256k1.ecdsaSign(keccak256Bytes(unsigned), key)
      const raw = serializeTransaction(transaction, {
        r: bytesToHex(signature.subarray(0, 32)),
        s: bytesToHex(signature.subarray(32, 64)),
        yParity: recid,
      })
      return { raw, hash: bytesToHex(keccak256Bytes(hexToBytesStrict(raw)!)) }
    },
  }
}
