import type {
  EvmAddress as Address,
  AddressChecksum,
  KeyReads,
  ChainBlocks,
  Hex,
  Permit2Contracts,
  SignatureVerifier,
} from '@x402-facilitator/domain'
import { makeChainBlocks } from './chain-blocks.js'
import { makeChainReadiness, type ChainReadiness } from './chain-readiness.js'
import { makeChainRpc, type RpcUrlEvent } from './rpc/chain-rpc.js'
import {
  checkedTokens,
  makeChainToken,
  type ChainToken,
  type SigningSubmitter,
  type TokenConfig,
} from './chain-token.js'
import { makeEip55AddressChecksum } from './signing/eip55-address-checksum.js'
import { makeErc1271Check } from './wallets/erc1271-check.js'
import { makeErc6492SignatureCheck } from './wallets/erc6492-signature-check.js'
import type { RpcTokenReader } from './token/rpc-token-reader.js'
import { makeSigningKeyCore } from './submission/signing-key-core.js'
import type { ReceiptMode } from './submission/sync-send.js'
import { signedGasLimit } from './signing/transaction-signer.js'

export type { ChainToken, SigningSubmitter, TokenConfig } from './chain-token.js'

/** One network's configuration: everything the chain's side of the facilitator is built from. */
export interface NetworkConfig {
  /** The network's RPC URLs (at least one), in order of preference: one primary at a time (rpc-failover.ts). */
  readonly rpcUrls: ReadonlyArray<string>
  /** The chain id every URL must answer (`eth_chainId`); a URL serving another is never used, and reported. */
  readonly chainId?: number
  /** Every call fails within this bound, whatever the node does [10 000]. */
  readonly rpcTimeoutMs?: number
  /** Told when a URL fails, serves another chain or becomes the primary (labels only: URLs may hold API keys). */
  readonly onUrlEvent?: (event: RpcUrlEvent) => void
  /**
   * The EIP-3009 tokens settled (at least one, each once), each with the batch settler bound to it, if any (checked
   * at start-up, docs/ARCHITECTURE.md §5.7; none: one transaction per payment).
   */
  readonly tokens: ReadonlyArray<TokenConfig>
  /** The signing keys, one submitter each, in this order; verify's trials run from the first one's account. */
  readonly privateKeys: ReadonlyArray<Hex>
  /** Their accounts (lower case), in the same order. */
  readonly accounts: ReadonlyArray<Address>
  readonly multicall3: Address
  /** `ERC6492_FACTORIES`: the factories a settle may call to deploy a payer. */
  readonly erc6492Factories: ReadonlyArray<Address>
  readonly receiptMode?: ReceiptMode
  /** Fee cap (wei per gas). */
  readonly maxFeePerGas?: bigint
  /** The broadcast queue's guard on a send held above a nonce still being prepared (broadcast-queue.ts). */
  readonly broadcastHoldMs?: number
  /** How long a key's lowest transaction may stay unmined with later ones waiting before it is told stalled. */
  readonly stalledAfterMs?: number
  /** Told of each payment a receipt claims without the token's log (counted failed), per signing account. */
  readonly onUnbackedSuccess?: (account: Address, detail: string) => void
  /** Permit2 and the x402 proxies on this network [the canonical addresses]. */
  readonly permit2?: Permit2Contracts
}

/** Everything the app needs of one network's chain, built once per network. */
export interface Chain {
  /** One per configured token, in order; each token's submitters share their key's core (docs/ARCHITECTURE.md §5.8). */
  readonly tokens: ReadonlyArray<ChainToken>
  /** The first token's reads (rules 8–10), with its symbol and decimals for `/supported`. */
  readonly tokenReader: RpcTokenReader
  /** The first token's rule 7: keys by recovery, contracts by ERC-1271, undeployed wallets by ERC-6492. */
  readonly signatureVerifier: SignatureVerifier
  /** The first token's, one per signing key, in the order of `NetworkConfig.privateKeys`. */
  readonly submitters: ReadonlyArray<SigningSubmitter>
  /** The finality watcher's reads. */
  readonly chainBlocks: ChainBlocks
  readonly addressChecksum: AddressChecksum
  readonly readiness: ChainReadiness
  readonly keyReads: KeyReads
  /** The first token's settler's `itemGasLimit`, read once; undefined without one. Throws when it cannot be read. */
  readonly settlerItemGasLimit: () => Promise<bigint | undefined>
  /** HTTP requests sent to the node so far, over all its URLs (a JSON-RPC batch counts once): read when scraped. */
  readonly httpRequests: () => number
  /** Closes the node's sockets. */
  readonly stop: () => Promise<void>
}

/** The chain's side of the facilitator for one network: every adapter over one shared JSON-RPC access. */
export const makeChain = (config: NetworkConfig): Chain => {
  const { multicall3, erc6492Factories } = config
  const tokenConfigs = checkedTokens(config.tokens)
  const { rpcUrls, chainId, rpcTimeoutMs, onUrlEvent } = config
  let httpRequests = 0
  const rpc = makeChainRpc({ rpcUrls, chainId, rpcTimeoutMs, onHttpRequest: () => httpRequests++, onUrlEvent })
  const erc1271 = makeErc1271Check(rpc)
  const erc6492 = makeErc6492SignatureCheck({ rpc, erc1271, allowedFactories: erc6492Factories })
  // One core per key, whatever the tokens: their transfers share its nonces, queue, watcher, fees and gap filler.
  const keys = config.privateKeys.map((privateKey, i) => ({
    account: config.accounts[i]!,
    core: makeSigningKeyCore({
      rpc,
      privateKey,
      chainId,
      receiptMode: config.receiptMode,
      maxFeePerGas: config.maxFeePerGas,
      ...(config.broadcastHoldMs === undefined ? {} : { broadcastHoldMs: config.broadcastHoldMs }),
      ...(config.stalledAfterMs === undefined ? {} : { stalledAfterMs: config.stalledAfterMs }),
    }),
  }))
  const parts = {
    rpc,
    keys,
    multicall3,
    erc6492Factories,
    erc1271,
    erc6492,
    onUnbackedSuccess: config.onUnbackedSuccess,
    ...(config.permit2 === undefined ? {} : { permit2: config.permit2 }),
  }
  const tokens = tokenConfigs.map((token) => makeChainToken(token, parts))
  const first = tokens[0]!
  const readiness = makeChainReadiness(rpc)
  const { gasBalance, gasPrice, settlerAllows } = readiness
  return {
    tokens,
    tokenReader: first.tokenReader,
    signatureVerifier: first.signatureVerifier,
    submitters: first.submitters,
    chainBlocks: makeChainBlocks(rpc),
    addressChecksum: makeEip55AddressChecksum(),
    readiness,
    keyReads: { gasBalance, gasPrice, settlerAllows, signedGasLimit },
    settlerItemGasLimit: first.settlerItemGasLimit,
    httpRequests: () => httpRequests,
    stop: async () => rpc.close(),
  }
}
