// The settle phase: a warm-up, then distinct valid payments to a fresh payee measured; every answer must be
// 200 {success:true, txHash}; then every one checked on-chain and in the journal (bench/lib/checks.mjs).
import { say } from '../basics.mjs'
import { balances, checkSettlements } from '../checks.mjs'
import { measure, sendPayments } from '../measure.mjs'

const settleJudge = (status, body) => (status === 200 && body?.success === true && body.txHash ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`)

/** The run's `settle` JSON, its checks under `exactlyOnce`. */
export const measureSettle = async (context, { settleWarm, settleSigned, settlePayTo }) => {
  const { chain, rpc, db } = context
  say(`  settle: ${settleWarm.length} warm-up, then ${context.config.settle} at concurrency ${context.concurrency}…`)
  await sendPayments(context, 'settle', settleWarm, settleJudge)
  const fromBlock = Number(BigInt(await rpc.call('eth_blockNumber')))
  const before = await balances(rpc, chain.token, [...settleSigned.map((s) => s.payer), settlePayTo])
  const { result, answers } = await measure(context, 'settle', settleSigned, settleJudge)
  say('    checking every settlement on-chain and in the journal…')
  const check = await checkSettlements({ rpc, db, token: chain.token, facilitator: chain.facilitator, signed: settleSigned, answers, payTo: settlePayTo, fromBlock, balancesBefore: before })
  say(`    ${check.ok ? 'all settled exactly once, receipts, balances and journal agree' : `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}; PROBLEMS: ${check.problems.join('; ')}`}`)
  return { ...result, chainBlockAtStart: fromBlock, exactlyOnce: check }
}
