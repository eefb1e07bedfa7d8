// One whole run against the running service, its phases in order: payments signed, then signature checks, verify and
// the HTTP floor, verify from smart wallets, the node's ceiling, settle (lone, then batched), Postgres inserts, and the
// service's memory at rest.
import { say } from './basics.mjs'
import { measureCeiling, measureInserts, measureSignatureChecks } from './phases/limits.mjs'
import { measureRestMemory } from './phases/rest-memory.mjs'
import { measureBatchedSettle, measureSettle } from './phases/settle.mjs'
import { measureWebhookSettle } from './phases/webhook-settle.mjs'
import { measureSettleNetworks } from './phases/settle-networks.mjs'
import { measureVerifyNetworks } from './phases/verify-networks.mjs'
import { signPerNetwork } from './network-payments.mjs'
import { measurePermit2Settle, measurePermit2Verify, signPermit2Payments } from './phases/permit2.mjs'
import { signPayments } from './phases/sign.mjs'
import { measureSvmSettle, measureSvmVerify, prepareSvmRun } from './phases/svm.mjs'
import { measureHttpFloor, measureVerify, measureWalletVerify } from './phases/verify.mjs'

/**
 * `context`: { config, chain, wallets, domain, network, networks, solana, service, batched, rpc, db, database, pids,
 * windows } (see bench.mjs); the measured phases' windows are added to `windows` (the batched service's to
 * `batched.windows`). The run's JSON. With two networks (`networks`): their verify and settle phases, then the memory at rest.
 * With `solana` (--solana): svm-verify right after verify, svm-settle right after settle (bench/lib/phases/svm.mjs).
 */
export const oneRun = async (context, index) => {
  const { config } = context
  const run = { run: index + 1 }
  const phase = (name) => config.phases.has(name)
  const runContext = { ...context, runNumber: index + 1, concurrency: config.concurrency }

  say(`\nrun ${index + 1}/${config.runs}: signing payments…`)
  // Solana payments are signed a chunk at a time as they are sent (a blockhash lives 15 s): only payees here.
  const svm = context.solana ? await prepareSvmRun(runContext) : undefined
  if (context.networks) {
    const { perNetwork, signing } = await signPerNetwork(runContext)
    run.signing = signing
    if (phase('verify')) run.verify = await measureVerifyNetworks(runContext, perNetwork)
    if (svm && phase('verify')) run.svmVerify = await measureSvmVerify(runContext, svm)
    if (phase('settle')) run.settle = await measureSettleNetworks(runContext, perNetwork)
    if (svm && phase('settle')) run.svmSettle = await measureSvmSettle(runContext, svm)
    run.serviceMemory = await measureRestMemory(runContext)
    return run
  }
  const payments = await signPayments(runContext)
  run.signing = payments.signing
  // Permit2 `exact` (DUSDT), each measured right after its EIP-3009 counterpart: bench/lib/phases/permit2.mjs.
  const permit2 = phase('permit2') ? await signPermit2Payments(runContext) : undefined
  if (permit2) {
    const { verifyWarm, verifySigned, settleWarm, settleSigned } = permit2
    run.signing.permit2Payments = [verifyWarm, verifySigned, settleWarm, settleSigned].flat().length
  }

  if (phase('limits')) run.recoveries = await measureSignatureChecks(runContext, payments)
  if (phase('verify')) {
    run.verify = await measureVerify(runContext, payments)
    run.httpFloor = await measureHttpFloor(runContext)
    if (permit2) run.permit2Verify = await measurePermit2Verify(runContext, permit2)
    if (svm) run.svmVerify = await measureSvmVerify(runContext, svm)
  }
  if (phase('wallet-verify')) run.walletVerify = await measureWalletVerify(runContext, payments)
  // batched-settle is judged against the node's ceiling of the same run: measured whenever it runs.
  if ((phase('limits') || phase('batched-settle')) && config.ceiling > 0)
    run.nodeCeiling = await measureCeiling(runContext, payments)
  if (phase('settle')) run.settle = await measureSettle(runContext, payments)
  if (permit2) run.permit2Settle = await measurePermit2Settle(runContext, permit2)
  if (svm && phase('settle')) run.svmSettle = await measureSvmSettle(runContext, svm)
  if (phase('batched-settle')) run.batchedSettle = await measureBatchedSettle(runContext, payments)
  if (phase('webhook-settle')) run.webhookSettle = await measureWebhookSettle(runContext, payments)
  if (phase('limits') && config.inserts > 0) run.pgInserts = await measureInserts(runContext)
  run.serviceMemory = await measureRestMemory(runContext)
  return run
}
