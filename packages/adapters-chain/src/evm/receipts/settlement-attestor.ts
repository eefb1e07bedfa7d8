import type { EvmAddress as Address, Hex, ReceiptAttestor, ReceiptFacts, SignedReceipt } from '@x402-facilitator/domain'
import secp256k1 from 'secp256k1'
import { privateKeyToAddress } from 'viem/accounts'
import { eip155ChainId } from '../caip2.js'
import { bytesToHex, hexToBytesStrict, lowerCase } from '../hex-bytes.js'
import { makeReceiptDigest } from './receipt-digest.js'

/** The receipt's EIP-712 domain: no `verifyingContract` (no contract checks it), bound to the settlement's chain. */
export const RECEIPT_DOMAIN = { name: 'x402 facilitator receipt', version: '1' } as const

export const SETTLEMENT_RECEIPT_TYPES = {
  SettlementReceipt: [
    { name: 'network', type: 'string' },
    { name: 'asset', type: 'address' },
    { name: 'payer', type: 'address' },
    { name: 'payee', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'maxAmount', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
    { name: 'scheme', type: 'string' },
    { name: 'transferMethod', type: 'string' },
    { name: 'transactionHash', type: 'bytes32' },
    { name: 'blockNumber', type: 'uint256' },
    { name: 'blockHash', type: 'bytes32' },
    { name: 'state', type: 'string' },
    { name: 'recordedAt', type: 'uint64' },
  ],
} as const

/**
 * A Solana payment's receipt: the same fields, its addresses, identity and hashes as the strings Solana spells them
 * (base58; the payment's identity is its message's SHA-256 in hex), under the same domain with chain id 0.
 */
export const SOLANA_SETTLEMENT_RECEIPT_TYPES = {
  SolanaSettlementReceipt: SETTLEMENT_RECEIPT_TYPES.SettlementReceipt.map((field) =>
    field.type === 'address' || field.type === 'bytes32' ? { name: field.name, type: 'string' as const } : field,
  ),
} as const

const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`

export interface AttestorOptions {
  /** Accounts of earlier attestation keys, still published. */
  readonly retired?: ReadonlyArray<Address>
  /**
   * The receipt's `recordedAt` (unix seconds) when its facts name none: a settle's success, as it is answered [the
   * machine's clock].
   */
  readonly now?: () => Date
}

/** The typed message of a receipt: every integer a decimal string, so it travels as JSON unchanged. */
const messageOf = (facts: ReceiptFacts, now: Date, noHash: string): Record<string, string> => ({
  network: facts.network,
  asset: facts.asset,
  payer: facts.payer,
  payee: facts.payee,
  value: facts.value.toString(),
  maxAmount: facts.maxAmount.toString(),
  nonce: facts.nonce,
  scheme: facts.scheme,
  transferMethod: facts.transferMethod,
  transactionHash: facts.txHash,
  blockNumber: facts.blockNumber.toString(),
  blockHash: facts.blockHash ?? noHash,
  state: facts.state,
  recordedAt: Math.floor((facts.recordedAt ?? now).getTime() / 1000).toString(),
})

/**
 * Settlement receipts (docs/ARCHITECTURE.md §4) signed with the attestation key: viem's EIP-712 digest, signed by
 * libsecp256k1 (RFC 6979, low s) as r ‖ s ‖ v with v 27 or 28. Throws on a key that is not a secp256k1 key.
 */
export const makeSettlementAttestor = (privateKey: Hex, options: AttestorOptions = {}): ReceiptAttestor => {
  const key = hexToBytesStrict(privateKey)
  if (!key || key.length !== 32 || !secp256k1.privateKeyVerify(key))
    throw new Error('the attestation private key is not a secp256k1 key')
  const evm = { primaryType: 'SettlementReceipt', types: SETTLEMENT_RECEIPT_TYPES, noHash: ZERO_HASH } as const
  const solana = { primaryType: 'SolanaSettlementReceipt', types: SOLANA_SETTLEMENT_RECEIPT_TYPES, noHash: '' } as const
  const digests = {
    evm: makeReceiptDigest(RECEIPT_DOMAIN, evm.primaryType, evm.types),
    solana: makeReceiptDigest(RECEIPT_DOMAIN, solana.primaryType, solana.types),
  }
  return {
    current: lowerCase(privateKeyToAddress(privateKey)),
    retired: (options.retired ?? []).map(lowerCase),
    attest: (facts): SignedReceipt => {
      const family = facts.network.startsWith('solana:') ? 'solana' : 'evm'
      const { primaryType, types, noHash } = family === 'solana' ? solana : evm
      const domain = { ...RECEIPT_DOMAIN, chainId: eip155ChainId(facts.network) ?? 0 }
      const message = messageOf(facts, options.now?.() ?? new Date(), noHash)
      const typed = { domain, types, primaryType, message }
      const digest = digests[family](domain.chainId, message)
      if (typeof digest === 'string') throw new Error(`a settlement receipt cannot be signed: ${digest}`)
      const { signature, recid } = secp256k1.ecdsaSign(digest, key)
      const signed = new Uint8Array(65)
      signed.set(signature, 0)
      signed[64] = 27 + recid
      return { ...typed, signature: bytesToHex(signed) }
    },
  }
}
