import { deploySettler, makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createKnex, silentKnexLog } from '@x402-facilitator/adapters-persistence/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Eip712Domain, Hex } from '@x402-facilitator/domain'
import { privateKeyToAddress } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'
import * as E from 'fp-ts/lib/Either.js'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { postJson, type JsonAnswer } from './json-client.js'
import { signedPaymentBody } from '../../src/tools/demo-payment.js'
import { startFacilitator, type RunningFacilitator, type StartOptions } from '../../src/start-facilitator.js'
import { TEST_ATTESTATION_KEY } from './attestation-key.js'

export interface TestFacilitator {
  readonly base: string
  readonly chain: LocalChain
  /** The token the app runs on (ASSET_ADDRESS): the chain's DemoUsd unless the test deployed another. */
  readonly asset: Address
  readonly db: TestDatabase
  readonly running: RunningFacilitator
  readonly domain: Eip712Domain
  readonly network: string
  /** A spec-dialect body signed by payer `index` [0]. */
  readonly payment: (p?: { payer?: number; value?: bigint }) => Promise<PaymentBody>
  readonly post: (endpoint: 'verify' | 'settle', body: unknown, headers?: Record<string, string>) => Promise<JsonAnswer>
  readonly balanceOf: (owner: Address) => Promise<bigint>
  readonly rows: () => Promise<Array<Record<string, unknown>>>
  readonly stop: () => Promise<void>
}

export type PaymentBody = Awaited<ReturnType<typeof signedPaymentBody>>

export const PAYEE: Address = '0x00000000000000000000000000000000000be7ee'

/**
 * `SETTLER_ADDRESS: DEPLOY_SETTLER` in a test's environment: a BatchSettler is deployed for the app's token, the
 * facilitator key its settler, and the app batches through it (docs/ARCHITECTURE.md §5.7).
 */
export const DEPLOY_SETTLER = 'deploy'
// A long window: payments a test sends at once share a batch even on a busy machine.
export const BATCHING_ON: Readonly<Record<string, string>> = { SETTLER_ADDRESS: DEPLOY_SETTLER, BATCH_WINDOW_MS: '500' }

/** The keys of `FACILITATOR_PRIVATE_KEYS` in a test's environment (comma-separated). */
const poolKeysOf = (env: Record<string, string>): Hex[] =>
  (env.FACILITATOR_PRIVATE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '') as Hex[]

/** Deploys the token the app is to run on, its payers funded; its address. */
export type DeployAsset = (chain: LocalChain) => Promise<Address>

/**
 * The real app (HTTP, journal on Postgres, chain adapters on anvil), in this process, on free ports; on the chain's
 * DemoUsd, or on what `deployAsset` deploys (support/circle-usdc-facilitator.ts: Circle's USDC).
 */
export const startTestFacilitator = async (
  env: Record<string, string> = {},
  chainOptions: Parameters<typeof startLocalChain>[0] = {},
  deployAsset: DeployAsset = async (chain) => chain.tokenAddress,
  /** Settings that name what the chain holds (e.g. ERC6492_FACTORIES). */
  envOf: (chain: LocalChain) => Record<string, string> = () => ({}),
  /** Where the app's log lines go (each one JSON line), instead of stdout. */
  logSink?: (line: string) => void,
  /** What else start-up takes (e.g. the webhook worker's test clock). */
  startOptions: Pick<StartOptions, 'webhookClock'> = {},
): Promise<TestFacilitator> => {
  // Set up with a block per transaction (a Circle USDC deployment and its mints: a minute at 2 s blocks), then blocks
  // every `blockTimeSeconds` for the app (anvil's interval mining ends its automine).
  const { blockTimeSeconds, ...setUpOptions } = chainOptions
  const chain = await startLocalChain({ payers: 3, ...setUpOptions })
  const asset = await deployAsset(chain).catch(async (error: unknown) => {
    await chain.stop()
    throw error
  })
  // A test that stops its Postgres brings its own server (DATABASE_URL); the others get a database of the shared one.
  const db: TestDatabase =
    env.DATABASE_URL === undefined
      ? await createTestDatabase()
      : {
          name: 'dedicated',
          connectionString: env.DATABASE_URL,
          knex: createKnex({ connectionString: env.DATABASE_URL, timeoutMs: 2_000, log: silentKnexLog }),
          drop: async () => {},
        }
  // A key pool (FACILITATOR_PRIVATE_KEYS, after the chain's facilitator key): each key funded and, batched, a settler.
  const poolKeys = poolKeysOf(env)
  for (const key of poolKeys)
    await anvilRpc(chain.rpcUrl, 'anvil_setBalance', [privateKeyToAddress(key), '0x56BC75E2D63100000'])
  const settlers = [
    chain.facilitator.address,
    ...poolKeys.map((key) => privateKeyToAddress(key).toLowerCase() as Address),
  ]
  const settler =
    env.SETTLER_ADDRESS === DEPLOY_SETTLER
      ? (
          await deploySettler({
            rpcUrl: chain.rpcUrl,
            token: asset,
            deployerKey: chain.facilitator.privateKey,
            settlers,
            pollingIntervalMs: 20,
          })
        ).address
      : env.SETTLER_ADDRESS
  if (blockTimeSeconds !== undefined) await anvilRpc(chain.rpcUrl, 'evm_setIntervalMining', [blockTimeSeconds])
  const config = E.getOrElseW((line: string) => {
    throw new Error(line)
  })(
    loadConfig({
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: asset,
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      PORT: '0',
      LOG_LEVEL: 'silent',
      CONFIRMATIONS: '0',
      // Tests send bursts from one address; the rate-limit test turns it on.
      RATE_LIMIT: '0',
      // Production start refuses to run without API keys; the tests that want keys set API_KEYS.
      ALLOW_OPEN: 'true',
      // The tests' upto payments go without API keys (the tests of that refusal set it to false).
      ALLOW_OPEN_UPTO: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      ...env,
      ...(settler === undefined ? {} : { SETTLER_ADDRESS: settler }),
      ...envOf(chain),
    }),
  )
  const logger = logSink ? pino({ level: config.LOG_LEVEL }, { write: logSink }) : pino({ level: config.LOG_LEVEL })
  const running = await startFacilitator({ config, logger, ...startOptions })
  const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), asset)
  const domain = E.getOrElseW(() => {
    throw new Error('no token domain')
  })(await reader.domain())
  const base = `${running.url}/api/facilitator`
  return {
    base,
    chain,
    asset,
    db,
    running,
    domain,
    network: running.policy.network,
    payment: ({ payer = 0, value = 1_000_000n } = {}) =>
      signedPaymentBody({
        payerKey: chain.payers[payer]!.privateKey,
        payer: chain.payers[payer]!.address,
        payTo: PAYEE,
        value,
        network: running.policy.network,
        domain,
      }),
    post: (endpoint, body, headers = {}) => postJson(`${base}/${endpoint}`, body, headers),
    balanceOf: async (owner) =>
      E.getOrElseW(() => {
        throw new Error('balance read failed')
      })(await reader.payerState(owner, `0x${'00'.repeat(32)}`)()).balance,
    rows: () => db.knex('settlements').select('*').orderBy('created_at'),
    stop: async () => {
      await running.stop()
      if (env.DATABASE_URL !== undefined) await db.knex.destroy()
      await db.drop()
      await chain.stop()
    },
  }
}
