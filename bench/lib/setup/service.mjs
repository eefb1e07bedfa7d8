// The service under measurement, configured for the benchmark (bench/lib/service.mjs starts and stops the process).
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { say } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'
import { startService } from '../service.mjs'

/**
 * Starts the production build against `chain` and `database`, signing with `facilitatorKey` (the chain's facilitator
 * unless given), with `env` on top of the bench's settings; with `profileDir`, under --cpu-prof writing there. Its
 * output goes to `<out>/<logName>`. `chainEnv`: what names the chain and token (two networks: NETWORKS instead).
 */
export const startBenchService = async ({
  config,
  chain,
  database,
  profileDir,
  facilitatorKey = chain.facilitator.privateKey,
  env = {},
  label = 'the service',
  logName = 'service.log',
  chainEnv = { RPC_URL: chain.rpcUrl, ASSET_ADDRESS: chain.token, CONFIRMATIONS: '0' },
  appArgs = [],
}) => {
  say(`starting ${label} (production build${config.profile ? ', --cpu-prof' : ''})…`)
  const service = await startService({
    env: {
      ...chainEnv,
      FACILITATOR_PRIVATE_KEY: facilitatorKey,
      DATABASE_URL: database.serviceUrl,
      LOG_LEVEL: config.logLevel,
      // The load comes from one client: a per-client rate limit would measure the limiter.
      RATE_LIMIT: '0',
      // A local benchmark on a throwaway chain: no API keys, said explicitly.
      ALLOW_OPEN: 'true',
      // A real network needs its receipts' own key (docs/CONFIGURATION.md); a fresh one per run, never a gas key.
      ATTESTATION_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
      NODE_OPTIONS: '',
      ...env,
    },
    nodeArgs: [
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
      ...(config.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ],
    appArgs,
    logFile: path.join(config.out, logName),
  })
  onCleanUp(() => service.stop())
  say(`${label} ready at ${service.origin} (pid ${service.pid})`)
  return service
}
