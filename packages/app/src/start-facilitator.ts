import 'reflect-metadata'
import path from 'node:path'
import { makeChainAdapters, startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import {
  acquireReplicaLock,
  createKnex,
  migrateToLatest,
  startEmbeddedPostgres,
} from '@x402-facilitator/adapters-persistence'
import { makeInMemoryPayerExposure, type Address, type FacilitatorPolicy } from '@x402-facilitator/domain'
import { Container } from 'inversify'
import type { Logger as PinoLogger } from 'pino'
import { privateKeyToAddress } from 'viem/accounts'
import type { Config } from './config.js'
import { freshDevDatabase } from './dev-database.js'
import { Facilitator } from './facilitator.js'
import { listen, type ListeningServer } from './http-server.js'
import { chainModule } from './modules/chain-module.js'
import { HttpApp, httpModule } from './modules/http-module.js'
import { persistenceModule } from './modules/persistence-module.js'
import { RecoveryLoop } from './recovery-loop.js'
import { ResourceStack } from './resource-stack.js'
import { loadApiKeys } from './api-keys.js'
import { makeObservability, makeReadiness, makeRpcRequestCounter } from './observability.js'
import { checkChain } from './start-up-checks.js'
import * as tokens from './tokens.js'

export interface RunningFacilitator {
  readonly url: string
  readonly policy: FacilitatorPolicy
  readonly rpcUrl: string
  readonly databaseUrl: string
  readonly chainId: number
  /** Dev mode only: the chain it started, with the demo payers. */
  readonly devChain?: LocalChain
  readonly container: Container
  readonly server: ListeningServer
  /** Graceful: stop accepting, let settles in flight finish (bounded), stop recovery, close the pool, stop what dev mode started. */
  readonly stop: () => Promise<void>
}

export interface StartOptions {
  readonly config: Config
  readonly logger: PinoLogger
  /** Progress lines while starting, for a person watching. */
  readonly progress?: (line: string) => void
}

export const startFacilitator = async ({ config, logger, progress = () => {} }: StartOptions): Promise<RunningFacilitator> => {
  const resources = new ResourceStack()
  const unwind = () => resources.unwind((name, error) => logger.error({ err: error }, `stopping ${name} failed`))
  try {
    let devChain: LocalChain | undefined
    let rpcUrl = config.RPC_URL
    let tokenAddress = config.ASSET_ADDRESS as Address | undefined
    let privateKey = config.FACILITATOR_PRIVATE_KEY
    if (rpcUrl === undefined) {
      progress('dev mode: starting a local chain (anvil)…')
      devChain = await startLocalChain({ payers: config.DEMO_PAYERS })
      resources.push('local chain', devChain.stop)
      progress(`dev mode: demo token ${devChain.tokenSymbol} deployed at ${devChain.tokenAddress}, ${devChain.payers.length} payers funded`)
      rpcUrl = devChain.rpcUrl
      tokenAddress = devChain.tokenAddress
      privateKey = devChain.facilitator.privateKey
    }
    if (tokenAddress === undefined || privateKey === undefined) throw new Error('configuration: ASSET_ADDRESS and FACILITATOR_PRIVATE_KEY are required with RPC_URL')
    const facilitatorAddress = privateKeyToAddress(privateKey).toLowerCase() as Address

    let databaseUrl = config.DATABASE_URL
    if (databaseUrl === undefined) {
      const dataDir = path.resolve(config.DATA_DIR, 'postgres')
      progress(`dev mode: starting embedded Postgres (data in ${dataDir})…`)
      const embedded = await startEmbeddedPostgres({ dataDir, handleSignals: false })
      resources.push('embedded Postgres', embedded.stop)
      databaseUrl = devChain ? await freshDevDatabase(embedded.connectionString) : embedded.connectionString
    }

    const knex = createKnex({
      connectionString: databaseUrl,
      timeoutMs: config.DB_TIMEOUT_MS,
      log: {
        warn: (message: unknown) => logger.warn({ knex: String(message) }, 'database'),
        error: (message: unknown) => logger.error({ knex: String(message) }, 'database'),
        deprecate: () => undefined,
        debug: () => undefined,
      },
    })
    resources.push('database pool', () => knex.destroy())
    progress('applying database migrations…')
    await migrateToLatest(knex)
    const lock = await acquireReplicaLock(databaseUrl, facilitatorAddress, {
      onLost: (reason) => logger.error({ reason }, 'the replica advisory lock was lost; another replica may now recover our rows'),
    })
    resources.push('replica lock', lock.release)

    const rpcRequests = makeRpcRequestCounter()
    const chain = makeChainAdapters({
      rpcUrl,
      onHttpRequest: () => rpcRequests.inc(),
      tokenAddress,
      facilitatorPrivateKey: privateKey,
      rpcTimeoutMs: config.RPC_TIMEOUT_MS,
      receiptMode: config.RECEIPT_MODE,
      ...(config.MAX_FEE_PER_GAS !== undefined ? { maxFeePerGas: config.MAX_FEE_PER_GAS } : {}),
    })
    const checked = await checkChain(chain, config.NETWORK_ID)
    const policy: FacilitatorPolicy = {
      network: config.NETWORK_ID ?? checked.caip2,
      asset: { address: tokenAddress, symbol: config.ASSET_SYMBOL ?? checked.token.symbol, decimals: checked.token.decimals },
      facilitator: facilitatorAddress,
      validityMarginSeconds: BigInt(config.VALIDITY_MARGIN_SECONDS),
      receiptTimeoutMs: config.RECEIPT_TIMEOUT_SECONDS * 1000,
    }

    const container = new Container()
    container.bind(tokens.Config).toConstantValue(config)
    container.bind(tokens.Logger).toConstantValue(logger)
    container.bind(tokens.Policy).toConstantValue(policy)
    container.bind(tokens.Clock).toConstantValue({ now: () => new Date(), sleep: (ms) => () => new Promise((resolve) => setTimeout(resolve, ms)) })
    container.bind(tokens.ChainIdentity).toConstantValue({ caip2: checked.caip2, tokenDomain: { name: checked.domain.name, version: checked.domain.version } })
    container.bind(tokens.PayerExposure).toConstantValue(makeInMemoryPayerExposure())
    container.bind(tokens.RecoveryPolicy).toConstantValue({
      minAgeMs: config.RECOVERY_INTERVAL_MS,
      claimTimeoutMs: config.CLAIM_TIMEOUT_MS,
      replaceAfterMs: config.REPLACE_AFTER_MS,
      batchSize: 100,
    })
    container.bind(Facilitator).toSelf().inSingletonScope()
    container.bind(RecoveryLoop).toSelf().inSingletonScope()
    const observability = makeObservability({ rpc: chain.rpc, knex, facilitator: facilitatorAddress, rpcRequests })
    const rateLimit = config.RATE_LIMIT ?? (devChain ? 0 : 1000)
    container.bind(tokens.HttpOperations).toConstantValue({
      apiKeys: await loadApiKeys(config),
      ...(rateLimit > 0 ? { rateLimit: { points: rateLimit, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS } } : {}),
      trustProxy: config.TRUST_PROXY,
      ...(config.CORS_ORIGINS ? { corsOrigins: config.CORS_ORIGINS } : {}),
      metrics: observability.registry,
      readiness: makeReadiness({ rpc: chain.rpc, knex, facilitator: facilitatorAddress, minGasBalanceWei: config.MIN_GAS_BALANCE_WEI }),
    })
    container.load(chainModule(chain, observability.chainCalls), persistenceModule(knex, config.DB_TIMEOUT_MS, observability.journalCalls, observability.journalStatements), httpModule())

    const facilitator = container.get(Facilitator)
    const recovery = container.get(RecoveryLoop)
    progress('recovering unfinished settlements…')
    await recovery.runOnce({ startUp: true })
    recovery.start(config.RECOVERY_INTERVAL_MS)
    resources.push('recovery loop', () => recovery.stop())

    const server = await listen(container.get(HttpApp), config.HOST, config.PORT, {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    })
    resources.push('HTTP server', () =>
      Promise.all([server.close(config.SHUTDOWN_GRACE_MS), facilitator.drain(config.SHUTDOWN_GRACE_MS)]).then(() => undefined),
    )
    return {
      url: server.url,
      policy,
      rpcUrl,
      databaseUrl,
      chainId: checked.chainId,
      ...(devChain ? { devChain } : {}),
      container,
      server,
      stop: unwind,
    }
  } catch (error) {
    await unwind()
    throw error
  }
}
