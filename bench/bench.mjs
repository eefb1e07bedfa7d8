#!/usr/bin/env node
// `npm run bench`: the service's verify and settle throughput against the limits of this machine, measured in one run.
// Flags (or environment BENCH_<FLAG>, e.g. BENCH_RUNS=3): bench/lib/options.mjs, or `node bench/bench.mjs --help`.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { say } from './lib/basics.mjs'
import { cleanUp, cleanUpOnSignalsAndTimeout, onCleanUp } from './lib/cleanup.mjs'
import { readConfig } from './lib/options.mjs'
import { VALUE_PER_PAYMENT } from './lib/phases/sign.mjs'
import { profileDirectory, summariseServiceProfile } from './lib/report/profile.mjs'
import { machine, saveResult } from './lib/report/save.mjs'
import { table } from './lib/report/table.mjs'
import { allAnswersCorrect, evaluate } from './lib/report/targets.mjs'
import { makeRpc } from './lib/rpc.mjs'
import { oneRun } from './lib/run.mjs'
import { readTokenDomain, setUpChain } from './lib/setup/chain.mjs'
import { startBatchedService } from './lib/setup/batched-service.mjs'
import { setUpDatabase } from './lib/setup/database.mjs'
import { networksEnv, setUpNetworks } from './lib/setup/networks.mjs'
import { permit2NetworkEnv, setUpPermit2 } from './lib/setup/permit2.mjs'
import { setUpSmartWallets } from './lib/setup/smart-wallets.mjs'
import { setUpSolana } from './lib/setup/solana.mjs'
import { startBenchService } from './lib/setup/service.mjs'
import { startWebhookServices } from './lib/setup/webhook-service.mjs'

const config = readConfig()
cleanUpOnSignalsAndTimeout(config.runs)

const main = async () => {
  const started = new Date()
  mkdirSync(config.out, { recursive: true })

  // Set-up: the chain, the database, the bench's own connections to both, then the service (one transaction per
  // payment), and for batched-settle a second one with its own key and settler.
  const chain = await setUpChain(config)
  const database = await setUpDatabase()
  const rpc = makeRpc(chain.rpcUrl, config.concurrency)
  onCleanUp(() => rpc.close())
  const wallets = config.phases.has('wallet-verify') ? await setUpSmartWallets({ chain, rpc }, config.wallets) : []
  const db = new pg.Pool({ connectionString: database.serviceUrl, max: 2 })
  onCleanUp(() => db.end())
  const domain = await readTokenDomain(chain)
  const network = `eip155:${chain.chainId}`
  const networks = config.networks > 1 ? await setUpNetworks({ config, chain, rpc, domain }) : undefined
  if (config.skippedPhases.length > 0)
    say(`with ${config.networks} networks only verify and settle run: skipped ${config.skippedPhases.join(', ')}`)
  // The permit2 phase: Permit2 placed and DUSDT deployed, the service serving it beside the demo token.
  const permit2 = config.phases.has('permit2') ? await setUpPermit2(chain) : undefined
  // --solana: the local SVM in its own process, payers funded; the service serves it beside the EVM network.
  const solana = config.solana ? await setUpSolana(config) : undefined
  const profileDir = profileDirectory(config, started)
  const service = await startBenchService({
    config,
    chain,
    database,
    profileDir,
    env: { BATCHING: 'off', ...solana?.env },
    ...(networks ? { chainEnv: networksEnv(networks) } : {}),
    ...(permit2 ? { chainEnv: permit2NetworkEnv(chain, permit2) } : {}),
  })
  if (config.profile && config.phases.has('batched-settle'))
    mkdirSync(path.join(profileDir, 'batched'), { recursive: true })
  const batched = config.phases.has('batched-settle')
    ? { ...(await startBatchedService({ config, chain, database, rpc, profileDir })), windows: [] }
    : undefined
  if (config.profile && config.phases.has('webhook-settle'))
    for (const name of ['webhook', 'control']) mkdirSync(path.join(profileDir, name), { recursive: true })
  const webhooks = config.phases.has('webhook-settle')
    ? await startWebhookServices({ config, chain, database, rpc, profileDir })
    : undefined
  const pids = { service: service.pid, anvil: chain.anvilPid, postgres: database.postgresPid, bench: process.pid }
  if (networks) pids.anvil2 = networks[1].chain.anvilPid
  if (solana) pids.svm = solana.nodePid

  // The runs, back to back against the same service.
  const runs = []
  const windows = []
  const context = {
    config,
    chain,
    wallets,
    domain,
    network,
    networks,
    permit2,
    solana,
    service,
    batched,
    webhooks,
    rpc,
    db,
    database,
    pids,
    windows,
  }
  for (let i = 0; i < config.runs; i++) runs.push(await oneRun(context, i))

  // The report.
  const summary = evaluate(runs)
  const profile = config.profile ? await summariseServiceProfile(service, profileDir, windows) : undefined
  const batchedProfile =
    config.profile && batched
      ? await summariseServiceProfile(batched.service, path.join(profileDir, 'batched'), batched.windows)
      : undefined
  say(`\n${table(runs, summary)}`)
  const result = {
    date: started.toISOString(),
    machine: machine(),
    config: {
      ...config,
      phases: [...config.phases],
      valuePerPayment: VALUE_PER_PAYMENT.toString(),
      ownChain: chain.own,
      ownDatabase: database.own,
    },
    runs,
    summary,
    profile,
    batchedProfile,
  }
  if (config.save) saveResult(config.out, started, result)
  if (!allAnswersCorrect(runs)) return 1
  return config.strict && !summary.allMet ? 1 : 0
}

let code
try {
  code = await main()
} catch (error) {
  console.error(`bench failed: ${error.stack ?? error.message}`)
  code = 2
} finally {
  await cleanUp()
}
process.exit(code)
