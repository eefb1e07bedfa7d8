import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import * as E from 'fp-ts/lib/Either.js'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { startFacilitator, type RunningFacilitator } from '../../src/start-facilitator.js'
import { TEST_ATTESTATION_KEY } from './attestation-key.js'

type Settings = Record<string, string>

/** The app started from `settings` alone (any port, silent). */
export const launch = (settings: Settings): Promise<RunningFacilitator> => {
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...settings })
  if (E.isLeft(config)) throw new Error(config.left)
  return startFacilitator({ config: config.right, logger: pino({ level: 'silent' }) })
}

/** Why a start that should be refused was: its one line (a start that succeeds fails the test). */
export const refusalOf = (started: Promise<RunningFacilitator>): Promise<string> =>
  started.then(
    async (running) => {
      await running.stop()
      throw new Error('expected the start to be refused')
    },
    (error: Error) => error.message,
  )

export interface StartUpHarness {
  readonly chain: LocalChain
  readonly db: TestDatabase
  /** The app on this chain and database, with the chain's token and facilitator key, open; `env` on top. */
  readonly start: (env?: Settings) => Promise<RunningFacilitator>
  readonly refusal: (env?: Settings) => Promise<string>
}

/**
 * For a suite whose tests start the app themselves (start-up checks): a chain of its own without payers and a
 * database, made before the suite and dropped after it.
 */
export const startUpHarness = (): StartUpHarness => {
  let chain: LocalChain | undefined
  let db: TestDatabase | undefined
  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
    await chain?.stop()
  })
  const ready = <A>(part: A | undefined): A => {
    if (part === undefined) throw new Error('the start-up harness is used before its suite started')
    return part
  }
  const start = (env: Settings = {}) =>
    launch({
      RPC_URL: ready(chain).rpcUrl,
      ASSET_ADDRESS: ready(chain).tokenAddress,
      FACILITATOR_PRIVATE_KEY: ready(chain).facilitator.privateKey,
      DATABASE_URL: ready(db).connectionString,
      ALLOW_OPEN: 'true',
      ALLOW_OPEN_UPTO: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      ...env,
    })
  return {
    get chain() {
      return ready(chain)
    },
    get db() {
      return ready(db)
    },
    start,
    refusal: (env) => refusalOf(start(env)),
  }
}
