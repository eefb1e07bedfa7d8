import type {
  EvmAddress as Address,
  Permit2Contracts,
  SignatureVerifier,
  TransferSubmitter,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { ChainRpc } from './rpc/chain-rpc.js'
import type { Erc1271Check } from './wallets/erc1271-check.js'
import type { Erc6492SignatureCheck } from './wallets/erc6492-signature-check.js'
import { lowerCase } from './hex-bytes.js'
import { makeRpcTokenReader, type RpcTokenReader } from './token/rpc-token-reader.js'
import { makeTokenTransferSubmitter } from './submission/rpc-transfer-submitter.js'
import { makeSecp256k1SignatureVerifier } from './signing/secp256k1-signature-verifier.js'
import { makeItemGasLimitReader, settlerTrialGas } from './settler/settler-batch.js'
import type { SigningKeyCore } from './submission/signing-key-core.js'

/** One EIP-3009 token a network settles, and the batch settler bound to it (none: one transaction per payment). */
export interface TokenConfig {
  readonly address: Address
  /** Checked at start-up (docs/ARCHITECTURE.md §5.7); bound to this token, so to no other. */
  readonly settler?: Address
}

/** A signing key's submitter of one token, over the key's core (docs/ARCHITECTURE.md §5.8). */
export interface SigningSubmitter {
  readonly account: Address
  readonly submitter: TransferSubmitter
}

/** One token's side of a network: what a route (network, token) is composed from. */
export interface ChainToken {
  /** Lower case. */
  readonly address: Address
  /** The token's reads (rules 8–10), with its symbol and decimals for `/supported`. */
  readonly tokenReader: RpcTokenReader
  /** Rule 7 over this token's EIP-712 domain: keys by recovery, contracts by ERC-1271, wallets by ERC-6492. */
  readonly signatureVerifier: SignatureVerifier
  /** One per signing key, in key order, each over that key's core (shared by every token of the network). */
  readonly submitters: ReadonlyArray<SigningSubmitter>
  /** The settler's `itemGasLimit`, read once; undefined without a settler. Throws when it cannot be read. */
  readonly settlerItemGasLimit: () => Promise<bigint | undefined>
}

/** What every token of a network is built over. */
export interface ChainTokenParts {
  readonly rpc: ChainRpc
  /** One per signing key, in key order: its account (as configured) and its core. */
  readonly keys: ReadonlyArray<{ readonly account: Address; readonly core: SigningKeyCore }>
  readonly multicall3: Address
  readonly erc6492Factories: ReadonlyArray<Address>
  readonly erc1271: Erc1271Check
  readonly erc6492: Erc6492SignatureCheck
  readonly onUnbackedSuccess?: (account: Address, detail: string) => void
  /** Permit2 and the x402 proxies on this network [the canonical addresses]. */
  readonly permit2?: Permit2Contracts
}

/** The tokens as configured, lower case; throws on none, on one named twice, and on a settler bound to two tokens. */
export const checkedTokens = (tokens: ReadonlyArray<TokenConfig>): ReadonlyArray<TokenConfig> => {
  if (tokens.length === 0) throw new Error('a network needs at least one token')
  const seen = new Set<Address>()
  const settlers = new Map<Address, Address>()
  return tokens.map(({ address, settler }) => {
    const token = lowerCase(address)
    if (seen.has(token)) throw new Error(`the token ${token} is configured twice on one network`)
    seen.add(token)
    if (settler === undefined) return { address: token }
    const bound = lowerCase(settler)
    const other = settlers.get(bound)
    if (other !== undefined) throw new Error(`the settler ${bound} is bound to one token, not to ${other} and ${token}`)
    settlers.set(bound, token)
    return { address: token, settler: bound }
  })
}

export const makeChainToken = ({ address, settler }: TokenConfig, parts: ChainTokenParts): ChainToken => {
  const { rpc, multicall3, erc6492Factories } = parts
  const itemGasLimit = settler === undefined ? undefined : makeItemGasLimitReader(rpc, settler)
  // With a settler, a payment that may be batched is tried with the gas its item gets (docs/ARCHITECTURE.md §5.7).
  const trialGasCapFor = itemGasLimit === undefined ? {} : { trialGasCapFor: settlerTrialGas(itemGasLimit) }
  const facilitator = parts.keys[0]?.account
  const tokenReader = makeRpcTokenReader(rpc, address, {
    facilitator,
    multicall3,
    erc6492Factories,
    ...trialGasCapFor,
    ...(parts.permit2 === undefined ? {} : { permit2: parts.permit2 }),
  })
  const submitters = parts.keys.map(({ account, core }): SigningSubmitter => {
    const submitter = makeTokenTransferSubmitter(core, {
      token: address,
      settler,
      multicall3,
      erc6492Factories,
      onUnbackedSuccess: (detail) => parts.onUnbackedSuccess?.(account, detail),
      ...(parts.permit2 === undefined ? {} : { permit2: parts.permit2 }),
    })
    return { account, submitter }
  })
  return {
    address: lowerCase(address),
    tokenReader,
    signatureVerifier: makeSecp256k1SignatureVerifier(
      tokenReader.domain,
      parts.erc1271,
      parts.erc6492,
      parts.permit2 === undefined ? {} : { permit2: parts.permit2.permit2 },
    ),
    submitters,
    settlerItemGasLimit: async () => {
      if (itemGasLimit === undefined) return undefined
      const read = await itemGasLimit()
      if (E.isLeft(read)) throw new Error(`start-up: ${read.left.reason}`)
      return read.right
    },
  }
}
