import type { Address, AddressChecksum, Hex, SignatureVerifier } from '@x402-facilitator/domain'
import { makeChainRpc, type ChainRpc } from './chain-rpc.js'
import { makeEip55AddressChecksum } from './eip55-address-checksum.js'
import { makeSecp256k1SignatureVerifier } from './secp256k1-signature-verifier.js'
import { makeViemTokenReader, type ViemTokenReader } from './viem-token-reader.js'
import type { ReceiptMode } from './receipt-mode.js'
import { makeViemTransferSubmitter, type ViemTransferSubmitter } from './viem-transfer-submitter.js'

export interface ChainAdaptersOptions {
  readonly rpcUrl: string
  readonly tokenAddress: Address
  readonly facilitatorPrivateKey: Hex
  readonly chainId?: number
  /** Every RPC failure becomes `ChainUnavailable` within this bound [10 000 ms]. */
  readonly rpcTimeoutMs?: number
  readonly pollingIntervalMs?: number
  readonly receiptMode?: ReceiptMode
  readonly maxFeePerGas?: bigint
  readonly gasLimit?: bigint
  /** Called for every HTTP request sent to the node (a batch counts once): for metrics. */
  readonly onHttpRequest?: () => void
}

export interface ChainAdapters {
  readonly rpc: ChainRpc
  readonly tokenReader: ViemTokenReader
  readonly signatureVerifier: SignatureVerifier
  readonly transferSubmitter: ViemTransferSubmitter
  readonly addressChecksum: AddressChecksum
}

/** Every port this package implements, over one shared RPC access: what the composition root binds. */
export const makeChainAdapters = (options: ChainAdaptersOptions): ChainAdapters => {
  const rpc = makeChainRpc({
    rpcUrl: options.rpcUrl,
    rpcTimeoutMs: options.rpcTimeoutMs,
    pollingIntervalMs: options.pollingIntervalMs,
    onHttpRequest: options.onHttpRequest,
  })
  const tokenReader = makeViemTokenReader(rpc, options.tokenAddress)
  return {
    rpc,
    tokenReader,
    signatureVerifier: makeSecp256k1SignatureVerifier(tokenReader.domain),
    transferSubmitter: makeViemTransferSubmitter({
      rpc,
      token: options.tokenAddress,
      privateKey: options.facilitatorPrivateKey,
      chainId: options.chainId,
      receiptMode: options.receiptMode,
      maxFeePerGas: options.maxFeePerGas,
      gasLimit: options.gasLimit,
    }),
    addressChecksum: makeEip55AddressChecksum(),
  }
}
