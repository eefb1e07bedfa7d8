// The settle phases: a warm-up, then distinct valid payments to a fresh payee measured; every answer must be
// 200 {success:true, txHash}; then every one checked on-chain and in the journal (bench/lib/checks.mjs). `settle`: the
// lone service, one transaction per payment. `batched-settle`: the batched service (bench/lib/setup/batched-service.mjs),
// payments arriving while a transaction is being signed and recorded going together in one settler call.
import { round, say } from '../basics.mjs'
import { balances, checkSettlements } from '../checks.mjs'
import { measure, sendPayments } from '../measure.mjs'

export const settleJudge = (status, body) =>
  status === 200 && body?.success === true && body.txHash
    ? undefined
    : `${status} ${JSON.stringify(body).slice(0, 200)}`

/** Warm-up, measured load and checks of one settle phase: the phase's JSON, its checks under `exactlyOnce`. */
export const settlePhase = async (context, { label, warm, signed, payTo, facilitator, settler }) => {
  const { chain, rpc, db } = context
  say(`  ${label}: ${warm.length} warm-up, then ${signed.length} at concurrency ${context.concurrency}…`)
  await sendPayments(context, 'settle', warm, settleJudge)
  const fromBlock = Number(BigInt(await rpc.call('eth_blockNumber')))
  const before = await balances(rpc, chain.token, [...signed.map((s) => s.payer), payTo])
  const { result, answers } = await measure(context, 'settle', signed, settleJudge, label)
  say('    checking every settlement on-chain and in the journal…')
  const check = await checkSettlements({
    rpc,
    db,
    token: chain.token,
    facilitator,
    settler,
    signed,
    answers,
    payTo,
    fromBlock,
    balancesBefore: before,
  })
  say(
    `    ${check.ok ? 'all settled exactly once, receipts, balances and journal agree' : `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}; PROBLEMS: ${check.problems.join('; ')}`}`,
  )
  const t = check.transactions
  say(
    `    ${t.count} transactions (${t.batches} settler batches, mean ${round(t.meanBatchSize ?? 0)} payments, largest ${t.largestBatch ?? 0}; ${t.lone} lone), gas per transfer ${t.gasPerTransfer}`,
  )
  return { ...result, concurrency: context.concurrency, chainBlockAtStart: fromBlock, exactlyOnce: check }
}

/** The run's `settle` JSON: the lone service. */
export const measureSettle = async (context, { settleWarm, settleSigned, settlePayTo }) =>
  settlePhase(context, {
    label: 'settle',
    warm: settleWarm,
    signed: settleSigned,
    payTo: settlePayTo,
    facilitator: context.chain.facilitator.address,
  })

/**
 * The run's `batchedSettle` JSON: the batched service (`context.batched`), at --batched-concurrency; its CPU and round
 * trips are the batched service's (the lone one idles meanwhile: counted as `loneService`).
 */
export const measureBatchedSettle = async (context, { batchedWarm, batchedSigned, batchedPayTo }) => {
  const { batched, config, pids } = context
  const phaseContext = {
    ...context,
    service: batched.service,
    pids: { ...pids, service: batched.service.pid, loneService: pids.service },
    windows: batched.windows,
    concurrency: config.batchedConcurrency,
  }
  const result = await settlePhase(phaseContext, {
    label: 'batched-settle',
    warm: batchedWarm,
    signed: batchedSigned,
    payTo: batchedPayTo,
    facilitator: batched.facilitator.address,
    settler: batched.settler,
  })
  return { ...result, settler: batched.settler, batchMaxItems: batched.batchMaxItems }
}
