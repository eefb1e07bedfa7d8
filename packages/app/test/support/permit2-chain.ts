import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { placeLocalPermit2, startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { keccak256, pad, toBytes } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { settlesInFlight, spawnApp, type AppProcess } from './app-process.js'
import { anvilRpc } from './chain-control.js'
import { PAYER_UNITS } from './permit2-facilitator.js'
import { approvePermit2 } from './permit2-payer-actions.js'
import { permit2Payers, type Permit2Payers } from './permit2-payers.js'
import { PAYEE } from './test-facilitator.js'
import { waitFor } from './wait-for.js'
import { TEST_ATTESTATION_KEY } from './attestation-key.js'

export type Row = Record<string, string>

/** A chain with DemoUsdt behind Permit2 and a database, for an app run as a process of its own (crash tests). */
export interface Permit2Chain extends Permit2Payers {
  readonly chain: LocalChain
  readonly db: TestDatabase
  readonly asset: Address
  /** The facilitator key first, then the pool's others. */
  readonly keys: ReadonlyArray<Address>
  /** The settings the app runs on here (DemoUsdt paid through Permit2 only, every key, short recovery bounds). */
  readonly env: Record<string, string>
  readonly rows: () => Promise<Row[]>
  readonly stop: () => Promise<void>
}

/** Anvil with Permit2, the x402 proxies and DemoUsdt (every payer holds it and approved Permit2), and Postgres. */
export const setUpPermit2Chain = async (poolKeys: ReadonlyArray<Hex> = []): Promise<Permit2Chain> => {
  const chain = await startLocalChain({ payers: 4, moreFacilitatorKeys: [...poolKeys] })
  const payers = chain.payers.map((p) => p.address)
  const placed = await placeLocalPermit2(chain.rpcUrl, { demoUsdt: { payers, units: PAYER_UNITS, approving: payers } })
  const asset = placed.demoUsdt!
  const domain = await makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), asset).domain()
  if (E.isLeft(domain)) throw new Error(`no EIP-712 domain of DemoUsdt: ${domain.left.reason}`)
  const db = await createTestDatabase()
  const env = {
    RPC_URL: chain.rpcUrl,
    ASSET_ADDRESS: asset,
    TRANSFER_METHODS: 'permit2',
    FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
    FACILITATOR_PRIVATE_KEYS: poolKeys.join(','),
    DATABASE_URL: db.connectionString,
    CONFIRMATIONS: '0',
    ALLOW_OPEN: 'true',
    ALLOW_OPEN_UPTO: 'true',
    ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
    RATE_LIMIT: '0',
    RECOVERY_INTERVAL_MS: '500',
    RECEIPT_TIMEOUT_SECONDS: '2',
    RPC_TIMEOUT_MS: '2000',
  }
  const signing = permit2Payers({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    asset,
    domain: domain.right,
    payerKeys: chain.payers.map((p) => p.privateKey),
    facilitator: chain.facilitator.address,
    payee: PAYEE,
  })
  return {
    ...signing,
    chain,
    db,
    asset,
    keys: [chain.facilitator.address, ...poolKeys.map((key) => privateKeyToAddress(key).toLowerCase() as Address)],
    env,
    rows: () => db.knex('settlements').select('*').orderBy('id') as Promise<Row[]>,
    stop: async () => {
      await db.drop()
      await chain.stop()
    },
  }
}

/**
 * The app started, nothing mined while `bodies` are settled at once, killed (SIGKILL) once `inFlight` rows are
 * broadcast: transactions in the node's pool, other rows claimed and unsent, the answers lost.
 */
export const killWithSettlesInFlight = async (
  setUp: Permit2Chain,
  bodies: ReadonlyArray<unknown>,
  inFlight: number,
  env: Record<string, string> = setUp.env,
): Promise<void> => {
  const first = await spawnApp(env)
  await anvilRpc(setUp.chain.rpcUrl, 'evm_setAutomine', [false])
  const answers = settlesInFlight(first.url, bodies)
  await waitFor(
    `${inFlight} rows broadcast`,
    async () => ((await setUp.rows()).filter((r) => r.state === 'submitted').length >= inFlight ? true : undefined),
    60_000,
    5,
  )
  await first.kill('SIGKILL')
  if (!(await Promise.all(answers)).includes('connection lost')) throw new Error('every settle was answered')
}

/**
 * Settings serving two Permit2 tokens on the chain's one network: DemoUsdt (Permit2 only) and the chain's DemoUsd (both
 * methods), which every payer approves Permit2 for here.
 */
export const servingTwoPermit2Tokens = async (setUp: Permit2Chain): Promise<Record<string, string>> => {
  for (const payer of setUp.chain.payers)
    await approvePermit2(setUp.chain.rpcUrl, setUp.chain.tokenAddress, payer.address)
  const network = {
    caip2: setUp.caip2,
    rpcUrls: [setUp.chain.rpcUrl],
    confirmations: 0,
    tokens: [
      { address: setUp.asset, transferMethods: ['permit2'] },
      { address: setUp.chain.tokenAddress, transferMethods: ['eip3009', 'permit2'] },
    ],
  }
  // The network's own settings instead of the one-network ones (RPC_URL, ASSET_ADDRESS, TRANSFER_METHODS, CONFIRMATIONS).
  const oneNetwork = ['RPC_URL', 'ASSET_ADDRESS', 'TRANSFER_METHODS', 'CONFIRMATIONS']
  const rest = Object.fromEntries(Object.entries(setUp.env).filter(([name]) => !oneNetwork.includes(name)))
  return { ...rest, NETWORKS: JSON.stringify([network]) }
}

/** Every row finished (none claimed or submitted), read once recovery is done. */
export const finishedRows = (setUp: Permit2Chain): Promise<Row[]> =>
  waitFor(
    'every row finished',
    async () => {
      const all = await setUp.rows()
      return all.some((r) => r.state === 'claimed' || r.state === 'submitted') ? undefined : all
    },
    90_000,
    250,
  )

/** The app again on the same chain and database. */
export const restart = (setUp: Permit2Chain, env: Record<string, string> = setUp.env): Promise<AppProcess> =>
  spawnApp(env)

const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'))

/** The token `Transfer`s to `payee` a mined transaction made: their values. */
export const transfersIn = async (setUp: Permit2Chain, txHash: string, payee: Address): Promise<bigint[]> => {
  type Log = { address: string; topics: string[]; data: string }
  const receipt = (await anvilRpc(setUp.chain.rpcUrl, 'eth_getTransactionReceipt', [txHash])) as { logs: Log[] }
  return receipt.logs
    .filter((l) => l.address === setUp.asset.toLowerCase() && l.topics[0] === TRANSFER_TOPIC)
    .filter((l) => l.topics[2] === pad(payee.toLowerCase() as Hex))
    .map((l) => BigInt(l.data))
}

/** Who sent a transaction. */
export const senderOf = async (rpcUrl: string, txHash: string): Promise<Address> =>
  ((await anvilRpc(rpcUrl, 'eth_getTransactionByHash', [txHash])) as { from: string }).from.toLowerCase() as Address

export interface MinedTransaction {
  readonly hash: string
  readonly from: string
  readonly to: string | null
  readonly value: string
  readonly input: string
  readonly reverted: boolean
}

/** Every transaction the facilitator's keys got mined, from the whole chain. */
export const minedFromKeys = async (setUp: Permit2Chain): Promise<MinedTransaction[]> => {
  const rpc = setUp.chain.rpcUrl
  const latest = Number(BigInt((await anvilRpc(rpc, 'eth_blockNumber')) as string))
  const mined: MinedTransaction[] = []
  for (let n = 0; n <= latest; n++) {
    type Block = { transactions: Array<Omit<MinedTransaction, 'reverted'>> }
    const block = (await anvilRpc(rpc, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as Block
    for (const tx of block.transactions.filter((t) => setUp.keys.includes(t.from.toLowerCase() as Address))) {
      const receipt = (await anvilRpc(rpc, 'eth_getTransactionReceipt', [tx.hash])) as { status: string }
      mined.push({ ...tx, reverted: receipt.status !== '0x1' })
    }
  }
  return mined
}

/** A zero-value transfer of a key to itself: what fills a nonce signed and never recorded (nonce-gap-filler). */
export const isNonceFiller = (tx: MinedTransaction): boolean =>
  tx.to === tx.from.toLowerCase() && BigInt(tx.value) === 0n && tx.input === '0x'
