import { makeEip55AddressChecksum, makeSecp256k1SignatureVerifier } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, ChainBlocks, Hex } from '@x402-facilitator/domain'
import { BLOCK_42, FAKE_TOKEN, FakeSubmitter, FakeToken } from '@x402-facilitator/domain/fake-chain'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { OpenChain } from '../../src/modules/chain/chain-module.js'
import type * as tokens from '../../src/tokens.js'

/** The block the fake submitter's receipts are mined in. */
const RECEIPT_BLOCK = 42n

/** A chain in memory, and what a test reads of it once the app opened it. */
export interface FakeChain {
  readonly open: OpenChain
  readonly token: FakeToken
  /** One per signing key, in the order of the app's accounts, once opened. */
  readonly submitters: ReadonlyArray<{ readonly account: Address; readonly submitter: FakeSubmitter }>
}

/**
 * A chain in memory for `startFacilitator`: the domain's FakeToken and FakeSubmitter (they pass the chain contract
 * suite the JSON-RPC adapter passes), the signature check's own recovery over the fake token's EIP-712 domain (no node
 * read), and a node that mines one block between two reads of its head. The node's URL is never called.
 */
export const makeFakeChain = (): FakeChain => {
  const token = new FakeToken()
  const submitters: Array<{ account: Address; submitter: FakeSubmitter }> = []
  let head = RECEIPT_BLOCK
  const hashAt = (height: bigint): Hex =>
    height === RECEIPT_BLOCK ? BLOCK_42 : `0x${height.toString(16).padStart(64, '0')}`
  const chainBlocks: ChainBlocks = {
    head: async () => E.right(head++),
    latest: async () => {
      const height = head++
      return E.right({ height, hash: hashAt(height) })
    },
    hashesAt: (heights) => TE.right(new Map(heights.filter((h) => h <= head).map((h) => [h, hashAt(h)]))),
  }
  const readiness: tokens.Chain['readiness'] = {
    network: async () => 'eip155:31337',
    rpcUrls: async () => [{ label: '#1 (fake)', chainId: 31337 }],
    head: async () => head,
    gasBalance: async () => 10n ** 18n,
    gasPrice: async () => 1n,
    pendingTransactions: async () => 0n,
    hasCode: async () => true,
    blockSeconds: async () => 1,
    settlerAllows: async () => true,
    checkSettler: async () => {},
    permit2Problem: async () => undefined,
    answersEip2612: async () => false,
  }
  const open: OpenChain = ({ infrastructure }) => {
    for (const account of infrastructure.facilitators) submitters.push({ account, submitter: new FakeSubmitter() })
    const { gasBalance, gasPrice, settlerAllows } = readiness
    const first = {
      tokenReader: Object.assign(token, { tokenInfo: TE.right({ address: FAKE_TOKEN, symbol: 'USDC', decimals: 6 }) }),
      signatureVerifier: makeSecp256k1SignatureVerifier(token.domain),
      submitters,
      settlerItemGasLimit: async () => undefined,
    }
    return {
      tokens: [{ address: FAKE_TOKEN, ...first }],
      ...first,
      chainBlocks,
      addressChecksum: makeEip55AddressChecksum(),
      readiness,
      keyReads: { gasBalance, gasPrice, settlerAllows, signedGasLimit: () => undefined },
      httpRequests: () => 0,
      stop: async () => {},
    }
  }
  return { open, token, submitters }
}
