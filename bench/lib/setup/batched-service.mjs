// The second service of the batched-settle phase: its own facilitator key (the replica advisory lock is per key, so it
// shares the database with the lone service), funded with ETH from the node's unlocked account, and a BatchSettler for
// the bench token deployed from that key as `npm run deploy-settler` does (that key its owner and only settler).
import path from 'node:path'
import { deploySettler } from '@x402-facilitator/adapters-chain'
import { numberToHex } from 'viem'
import { say } from '../basics.mjs'
import { accountOf, freshAccount } from '../payments.mjs'
import { sendMined } from './chain.mjs'
import { startBenchService } from './service.mjs'

/** Wei sent to the batched facilitator: its deployment, and every batch of every run, many times over. */
const FACILITATOR_ETH = 100n * 10n ** 18n

/**
 * The key the batched service signs with: BENCH_BATCHED_FACILITATOR_KEY (funded, on a node without an unlocked
 * account), else a fresh one funded from the node's first unlocked account.
 */
const batchedFacilitator = async (rpc) => {
  if (process.env.BENCH_BATCHED_FACILITATOR_KEY) return accountOf(process.env.BENCH_BATCHED_FACILITATOR_KEY)
  const [funder] = await rpc.call('eth_accounts')
  if (!funder)
    throw new Error(
      'the batched-settle phase funds its own facilitator key from an unlocked account: none on this node (give BENCH_BATCHED_FACILITATOR_KEY, or drop batched-settle from --phases)',
    )
  const facilitator = freshAccount()
  await sendMined(rpc, funder, { to: facilitator.address, value: numberToHex(FACILITATOR_ETH) })
  return facilitator
}

/** { service, facilitator ({ address, privateKey }), settler (address), batchMaxItems } */
export const startBatchedService = async ({ config, chain, database, rpc, profileDir }) => {
  const facilitator = await batchedFacilitator(rpc)
  const deployment = await deploySettler({
    rpcUrl: chain.rpcUrl,
    token: chain.token,
    deployerKey: facilitator.privateKey,
    settlers: [facilitator.address],
    pollingIntervalMs: 20,
    progress: (line) => say(`  ${line}`),
  })
  const settler = deployment.address.toLowerCase()
  const service = await startBenchService({
    config,
    chain,
    database,
    profileDir: path.join(profileDir, 'batched'),
    facilitatorKey: facilitator.privateKey,
    env: { SETTLER_ADDRESS: settler, BATCH_MAX_ITEMS: String(config.batchMaxItems), BATCHING: 'on' },
    label: 'the batched service',
    logName: 'service-batched.log',
  })
  return { service, facilitator, settler, batchMaxItems: config.batchMaxItems }
}
