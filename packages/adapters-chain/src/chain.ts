import type {
  Address,
  AddressChecksum,
  ChainBlocks,
  ChainUnavailable,
  Hex,
  SignatureVerifier,
  TokenInfo,
  TokenReader,
  TransferSubmitter,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { makeChainBlocks } from './chain-blocks.js'
import { makeChainReadiness, type ChainReadiness } from './chain-readiness.js'
import { makeChainRpc, type RpcUrlEvent } from './chain-rpc.js'
import { makeEip55AddressChecksum } from './eip55-address-checksum.js'
import { makeErc1271Check } from './erc1271-check.js'
import { makeErc6492SignatureCheck } from './erc6492-signature-check.js'
import { makeRpcTokenReader } from './rpc-token-reader.js'
import { makeRpcTransferSubmitter } from './rpc-transfer-submitter.js'
import { makeSecp256k1SignatureVerifier } from './secp256k1-signature-verifier.js'
import { makeItemGasLimitReader, settlerTrialGas } from './settler-batch.js'
import type { ReceiptMode } from './sync-send.js'
import { signedGasLimit } from './transaction-signer.js'

/** One network's configuration: everything the chain's side of the facilitator is built from. */
export interface NetworkConfig {
  /** The network's RPC URLs (at least one), in order of preference: one primary at a time (rpc-failover.ts). */
  readonly rpcUrls: ReadonlyArray<string>
  /** The chain id every URL must answer (`eth_chainId`); a URL serving another is never used, and reported. */
  readonly chainId?: number
  /** Every call fails within this bound, whatever the node does [10 000]. */
  readonly rpcTimeoutMs?: number
  /** Called for every HTTP request sent to a node (a JSON-RPC batch counts once), with its URL's label `#1 (host)`. */
  readonly onHttpRequest?: (label: string) => void
  /** Told when a URL fails, serves another chain or becomes the primary (labels only: URLs may hold API keys). */
  readonly onUrlEvent?: (event: RpcUrlEvent) => void
  /** The EIP-3009 token settled. */
  readonly token: Address
  /** The signing keys, one submitter each, in this order; verify's trials run from the first one's account. */
  readonly privateKeys: ReadonlyArray<Hex>
  /** Their accounts (lower case), in the same order. */
  readonly accounts: ReadonlyArray<Address>
  readonly multicall3: Address
  /** `ERC6492_FACTORIES`: the factories a settle may call to deploy a payer. */
  readonly erc6492Factories: ReadonlyArray<Address>
  /** The batch settler, checked at start-up (docs/ARCHITECTURE.md §5.7); none: one transaction per payment. */
  readonly settler?: Address
  readonly receiptMode?: ReceiptMode
  /** Fee cap (wei per gas). */
  readonly maxFeePerGas?: bigint
  /** Told of each payment a receipt claims without the token's log (counted failed), per signing account. */
  readonly onUnbackedSuccess?: (account: Address, detail: string) => void
}

/** A signing key's submitter: its own nonces, broadcast queue and receipt watcher (docs/ARCHITECTURE.md §5.8). */
export interface SigningSubmitter {
  readonly account: Address
  readonly submitter: TransferSubmitter
}

/** What each signing key's lane reads of the node beside the ports (app/src/key-health.ts, key-guard.ts). */
export interface KeyReads {
  /** `account`'s native balance (what pays its gas), in wei. */
  readonly gasBalance: (account: Address) => Promise<bigint>
  /** The node's gas price, in wei. */
  readonly gasPrice: () => Promise<bigint>
  /** Whether the batch settler `settler` lets `account` call `settle` (`isSettler`). */
  readonly settlerAllows: (settler: Address, account: Address) => Promise<boolean>
  /** The gas limit a prepared transaction was signed with (its `raw`), when it says one. */
  readonly signedGasLimit: (raw: Hex) => bigint | undefined
}

/** Everything the app needs of one network's chain, built once per network. */
export interface Chain {
  /** The token's reads (rules 8–10), with its symbol and decimals for `/supported`. */
  readonly tokenReader: TokenReader & { readonly tokenInfo: TE.TaskEither<ChainUnavailable, TokenInfo> }
  /** Rule 7: keys by recovery, contracts by ERC-1271, undeployed wallets by ERC-6492. */
  readonly signatureVerifier: SignatureVerifier
  /** One per signing key, in the order of `NetworkConfig.privateKeys`. */
  readonly submitters: ReadonlyArray<SigningSubmitter>
  /** The finality watcher's reads. */
  readonly chainBlocks: ChainBlocks
  readonly addressChecksum: AddressChecksum
  readonly readiness: ChainReadiness
  readonly keyReads: KeyReads
  /** The settler's `itemGasLimit`, read once; undefined without a settler. Throws when it cannot be read. */
  readonly settlerItemGasLimit: () => Promise<bigint | undefined>
  /** Closes the node's sockets. */
  readonly stop: () => Promise<void>
}

/** The chain's side of the facilitator for one network: every adapter over one shared JSON-RPC access. */
export const makeChain = (config: NetworkConfig): Chain => {
  const { token, multicall3, erc6492Factories, settler } = config
  const { rpcUrls, chainId, rpcTimeoutMs, onHttpRequest, onUrlEvent } = config
  const rpc = makeChainRpc({ rpcUrls, chainId, rpcTimeoutMs, onHttpRequest, onUrlEvent })
  const itemGasLimit = settler === undefined ? undefined : makeItemGasLimitReader(rpc, settler)
  // With a settler, a payment that may be batched is tried with the gas its item gets (docs/ARCHITECTURE.md §5.7).
  const trialGasCapFor = itemGasLimit === undefined ? {} : { trialGasCapFor: settlerTrialGas(itemGasLimit) }
  const facilitator = config.accounts[0]
  const tokenReader = makeRpcTokenReader(rpc, token, { facilitator, multicall3, erc6492Factories, ...trialGasCapFor })
  const erc1271 = makeErc1271Check(rpc)
  const erc6492 = makeErc6492SignatureCheck({ rpc, erc1271, allowedFactories: erc6492Factories })
  const submitters = config.privateKeys.map((privateKey, i): SigningSubmitter => {
    const account = config.accounts[i]!
    const submitter = makeRpcTransferSubmitter({
      settler,
      rpc,
      token,
      multicall3,
      erc6492Factories,
      privateKey,
      chainId,
      receiptMode: config.receiptMode,
      maxFeePerGas: config.maxFeePerGas,
      onUnbackedSuccess: (detail) => config.onUnbackedSuccess?.(account, detail),
    })
    return { account, submitter }
  })
  const readiness = makeChainReadiness(rpc)
  const { gasBalance, gasPrice, settlerAllows } = readiness
  return {
    tokenReader,
    signatureVerifier: makeSecp256k1SignatureVerifier(tokenReader.domain, erc1271, erc6492),
    submitters,
    chainBlocks: makeChainBlocks(rpc),
    addressChecksum: makeEip55AddressChecksum(),
    readiness,
    keyReads: { gasBalance, gasPrice, settlerAllows, signedGasLimit },
    settlerItemGasLimit: async () => {
      if (itemGasLimit === undefined) return undefined
      const read = await itemGasLimit()
      if (E.isLeft(read)) throw new Error(`start-up: ${read.left.reason}`)
      return read.right
    },
    stop: async () => rpc.close(),
  }
}
