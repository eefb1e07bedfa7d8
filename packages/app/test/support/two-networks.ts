import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { RunningFacilitator } from '../../src/start-facilitator.js'
import { signedPaymentBody } from '../../src/tools/demo-payment.js'
import { postJson, type JsonAnswer } from './json-client.js'
import { launch } from './start-up-harness.js'
import { TEST_ATTESTATION_KEY } from './attestation-key.js'

/** One (network, token) the app serves in these suites. */
export interface TwoNetworksRoute {
  /** The spec-dialect name the configuration gives the network. */
  readonly network: string
  readonly chain: LocalChain
  readonly token: Address
  readonly domain: Eip712Domain
}

export interface TwoNetworks {
  /** alpha (chain 31337): its demo token; beta (chain 31338): its demo token and a second (EURC-like) one. */
  readonly alpha: LocalChain
  readonly beta: LocalChain
  readonly routes: ReadonlyArray<TwoNetworksRoute>
  readonly db: TestDatabase
  readonly running: RunningFacilitator
  readonly base: string
  /** A spec-dialect body on `route`, signed by alpha's payer `payer` (funded on both chains, every token). */
  readonly payment: (
    route: TwoNetworksRoute,
    p?: { payer?: number; nonce?: Address; value?: bigint },
  ) => Promise<unknown>
  readonly post: (endpoint: 'verify' | 'settle', body: unknown) => Promise<JsonAnswer>
  readonly stop: () => Promise<void>
}

const PAYER_UNITS = 1_000_000_000n

/** The chains and database of these suites, and the settings that serve them (`NETWORKS` alone, one key). */
export interface TwoNetworksSetUp {
  readonly alpha: LocalChain
  readonly beta: LocalChain
  readonly db: TestDatabase
  readonly settings: Record<string, string>
  readonly routes: ReadonlyArray<TwoNetworksRoute>
  readonly stop: () => Promise<void>
}

/**
 * Two real anvils (chain ids 31337 and 31338) and Postgres; the same signing key on both networks (the usual set-up),
 * each token with its own batch settler; `confirmations` each network's finality depth.
 */
export const setUpTwoNetworks = async (confirmations: { alpha: number; beta: number } = { alpha: 0, beta: 0 }) => {
  const alpha = await startLocalChain({ chainId: 31337, payers: 3, settler: true })
  const beta = await startLocalChain({
    chainId: 31338,
    payers: 0,
    settler: true,
    facilitatorPrivateKey: alpha.facilitator.privateKey,
    moreTokens: [{ name: 'Demo EUR', symbol: 'DEUR' }],
  })
  // alpha's payers hold beta's tokens too: one payer, one nonce, two networks.
  for (const payer of alpha.payers) {
    await beta.mint(payer.address, PAYER_UNITS)
    await beta.moreTokens[0]!.mint(payer.address, PAYER_UNITS)
  }
  const db = await createTestDatabase()
  const networks = [
    {
      name: 'alpha',
      caip2: 'eip155:31337',
      rpcUrls: [alpha.rpcUrl],
      confirmations: confirmations.alpha,
      tokens: [tokenOf(alpha)],
    },
    {
      name: 'beta',
      caip2: 'eip155:31338',
      rpcUrls: [beta.rpcUrl],
      confirmations: confirmations.beta,
      tokens: [tokenOf(beta), { address: beta.moreTokens[0]!.address, settler: beta.moreTokens[0]!.settlerAddress }],
    },
  ]
  const settings = {
    NETWORKS: JSON.stringify(networks),
    FACILITATOR_PRIVATE_KEY: alpha.facilitator.privateKey,
    DATABASE_URL: db.connectionString,
    ALLOW_OPEN: 'true',
    ALLOW_OPEN_UPTO: 'true',
    ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
    RATE_LIMIT: '0',
    BATCH_WINDOW_MS: '200',
  }
  const routeOf = async (network: string, chain: LocalChain, token: Address): Promise<TwoNetworksRoute> => {
    const domain = await makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), token).domain()
    if (E.isLeft(domain)) throw new Error(`no EIP-712 domain of ${token}: ${domain.left.reason}`)
    return { network, chain, token, domain: domain.right }
  }
  const routes = [
    await routeOf('alpha', alpha, alpha.tokenAddress),
    await routeOf('beta', beta, beta.tokenAddress),
    await routeOf('beta', beta, beta.moreTokens[0]!.address),
  ]
  const stop = async () => {
    await db.drop()
    await beta.stop()
    await alpha.stop()
  }
  return { alpha, beta, db, settings, routes, stop } satisfies TwoNetworksSetUp
}

/** A spec-dialect body on `route`, signed by alpha's payer `payer` (funded on both chains, every token). */
export const twoNetworksPayment = (
  setUp: Pick<TwoNetworksSetUp, 'alpha'>,
  route: TwoNetworksRoute,
  p: { payer?: number; nonce?: Address; value?: bigint } = {},
) => {
  const payer = setUp.alpha.payers[p.payer ?? 0]!
  return signedPaymentBody({
    payerKey: payer.privateKey,
    payer: payer.address,
    payTo: PAYEE_OF_TWO,
    value: p.value ?? 1_000_000n,
    network: route.network,
    domain: route.domain,
    nonce: p.nonce,
  })
}

/** The set-up, and the app started from its settings in this process. */
export const startTwoNetworks = async (
  settings: Record<string, string> = {},
  confirmations?: { alpha: number; beta: number },
): Promise<TwoNetworks> => {
  const setUp = await setUpTwoNetworks(confirmations)
  const running = await launch({ ...setUp.settings, ...settings })
  const base = `${running.url}/api/facilitator`
  return {
    ...setUp,
    running,
    base,
    payment: (route, p = {}) => twoNetworksPayment(setUp, route, p),
    post: (endpoint, body) => postJson(`${base}/${endpoint}`, body),
    stop: async () => {
      await running.stop()
      await setUp.stop()
    },
  }
}

export const PAYEE_OF_TWO: Address = '0x00000000000000000000000000000000000b0b02'

const tokenOf = (chain: LocalChain) => ({ address: chain.tokenAddress, settler: chain.settlerAddress })
