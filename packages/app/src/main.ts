import { writeFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { pino } from 'pino'
import { helpText, loadConfig } from './config.js'
import { readConfigFile } from './config-file.js'
import { startFacilitator } from './start-facilitator.js'

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log(helpText())
  process.exit(0)
}

const fail = (line: string): never => {
  console.error(line)
  process.exit(1)
}

const configFlag = args.indexOf('--config')
const fileSettings =
  configFlag === -1
    ? {}
    : await readConfigFile(args[configFlag + 1]).catch((error: Error) => fail(`configuration: ${error.message}`))
if (process.env.WEBHOOKS !== undefined) fail('configuration: webhooks come from the --config file only, not WEBHOOKS')
const config = E.getOrElseW(fail)(loadConfig({ ...fileSettings, ...process.env }))
// Lines are written 4 KiB at a time (one write per request cost a syscall each) and at least every second; while
// stdout is not read (a stalled log shipper), at most 16 MiB wait, and what comes beyond is dropped, not kept.
const logger = pino(
  { level: config.LOG_LEVEL, base: { service: 'x402-facilitator' } },
  pino.destination({ sync: false, minLength: 4096, maxLength: 16 * 1024 * 1024 }),
)
setInterval(() => logger.flush(), 1_000).unref()
const say = (line: string) => console.log(line)

process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

const running = await startFacilitator({ config, logger, progress: say }).catch((error: Error) =>
  fail(`start-up failed: ${error.message}`),
)

// Before the ready line: whoever reads it may stop us at once, while the lines after it are still being written.
let stopping = false
const shutdown = (signal: string) => {
  if (stopping) process.exit(1)
  stopping = true
  say(`${signal}: stopping (settles in flight may finish, up to ${config.SHUTDOWN_GRACE_MS} ms)…`)
  running.stop().then(
    () => {
      say('stopped')
      logger.flush()
      process.exit(0)
    },
    (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed')
      process.exit(1)
    },
  )
}
process.on('SIGINT', () => shutdown('SIGINT'))
// DENY_LIST_FILE set: SIGHUP reads it again now (docs/OPERATIONS.md "Screening"); otherwise SIGHUP stops us as before.
if (running.denyList !== undefined) process.on('SIGHUP', () => void running.denyList?.reload())
process.on('SIGTERM', () => shutdown('SIGTERM'))

/** What is served, as the ready line says it: one network and token as always, else each network with its tokens. */
const served = (): string => {
  const routes = [...running.routes, ...running.svmRoutes]
  if (routes.length === 1) return `network ${routes[0]!.network}, token ${routes[0]!.token.symbol} ${routes[0]!.asset}`
  const networks = [...new Set(routes.map((route) => route.network))]
  const tokensOf = (network: string) =>
    routes.filter((route) => route.network === network).map((route) => `${route.token.symbol} ${route.asset}`)
  return `networks ${networks.map((network) => `${network} (${tokensOf(network).join(', ')})`).join(', ')}`
}
say(
  `x402 facilitator ready at ${running.url}/api/facilitator — ${served()}, facilitator ${running.policy.facilitator}` +
    (running.facilitators.length > 1
      ? ` and ${running.facilitators.length - 1} more signing keys (${running.facilitators.slice(1).join(', ')})`
      : ''),
)
say(
  running.settler
    ? `batch settler ${running.settler.address}, up to ${running.settler.maxItems} payments a transaction`
    : 'no batch settler: one transaction per payment',
)
if (running.devChain) {
  const session = path.resolve(config.DATA_DIR, 'dev-session.json')
  await mkdir(path.dirname(session), { recursive: true })
  await writeFile(
    session,
    JSON.stringify(
      {
        url: running.url,
        rpcUrl: running.rpcUrl,
        network: running.policy.network,
        token: running.policy.asset,
        settler: running.settler?.address,
        // Every network dev mode started, each with its tokens: `npm run demo -- --network <name> [--token <symbol>]`.
        networks: running.devChains.map((chain) => {
          const routes = running.routes.filter((route) => route.caip2 === `eip155:${chain.chainId}`)
          return {
            name: routes[0]?.network,
            rpcUrl: chain.rpcUrl,
            tokens: routes.map(({ asset, token }) => ({
              address: asset,
              symbol: token.symbol,
              decimals: token.decimals,
            })),
          }
        }),
        payers: running.devChain.payers,
        smartWallets: running.devChain.smartWallets,
        // `npm run demo -- --network solana:…`: the local Solana chain, its mint, fee payer, demo payers and payee.
        ...(running.devSvm && {
          solana: {
            network: running.devSvm.network,
            rpcUrl: running.devSvm.rpcUrl,
            mint: running.devSvm.chain.mint,
            feePayer: running.devSvm.feePayer.address,
            payee: running.devSvm.payee,
            payers: running.devSvm.payers,
          },
        }),
      },
      null,
      2,
    ),
    { mode: 0o600 },
  )
  say(`dev-only demo payers (keys of a throwaway local chain, never use them elsewhere; also in ${session}):`)
  for (const payer of running.devChain.payers) say(`  ${payer.address}  key ${payer.privateKey}`)
  const { deployed, counterfactual } = running.devChain.smartWallets
  say(
    'dev-only demo smart wallets (ERC-1271; `npm run demo -- --smart-wallet` or `-- --counterfactual` pays from them):',
  )
  say(`  ${deployed.address}  deployed, owner key ${deployed.ownerPrivateKey}`)
  say(
    `  ${counterfactual.address}  not deployed yet (ERC-6492, factory ${counterfactual.factory}), owner key ` +
      `${counterfactual.ownerPrivateKey}`,
  )
}
