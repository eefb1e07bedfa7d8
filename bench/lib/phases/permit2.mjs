// The permit2 phase: Permit2 `exact` verify and settle (x402 v2 bodies, DUSDT) with the load shape of the EIP-3009
// phases (as many warm-up and measured requests, the same concurrency, value and payers), each measured right after
// its EIP-3009 counterpart in the same run against the same service, so that their ratio compares like with like.
import { say } from '../basics.mjs'
import { balances } from '../checks.mjs'
import { measure, sendPayments } from '../measure.mjs'
import { checkPermit2Settlements } from '../permit2-checks.mjs'
import { signPermit2Bodies } from '../permit2-payments.mjs'
import { freshAddress } from '../payments.mjs'
import { VALUE_PER_PAYMENT } from './sign.mjs'

const verifyJudge = (status, body) =>
  status === 200 && body?.isValid === true ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`
const settleJudge = (status, body) =>
  status === 200 && body?.success === true && body.transaction
    ? undefined
    : `${status} ${JSON.stringify(body).slice(0, 200)}`

/** The run's Permit2 payments: { verifyWarm, verifySigned, settleWarm, settleSigned, settlePayTo }. */
export const signPermit2Payments = async ({ config, chain, network, permit2 }) => {
  const sign = (count, payTo) =>
    signPermit2Bodies({
      count,
      payers: chain.payers,
      payTo,
      value: VALUE_PER_PAYMENT,
      network,
      chainId: chain.chainId,
      token: permit2.token,
      domain: permit2.domain,
    })
  const verifyPayTo = freshAddress()
  const settlePayTo = freshAddress()
  return {
    verifyWarm: await sign(config.warmup, verifyPayTo),
    verifySigned: await sign(config.verify, verifyPayTo),
    settleWarm: await sign(config.settleWarmup, freshAddress()),
    settleSigned: await sign(config.settle, settlePayTo),
    settlePayTo,
  }
}

/** The run's `permit2Verify` JSON. */
export const measurePermit2Verify = async (context, { verifyWarm, verifySigned }) => {
  say(
    `  permit2-verify: ${verifyWarm.length} warm-up, then ${verifySigned.length} at concurrency ${context.concurrency}…`,
  )
  await sendPayments(context, 'verify', verifyWarm, verifyJudge)
  return (await measure(context, 'verify', verifySigned, verifyJudge, 'permit2-verify')).result
}

/** The run's `permit2Settle` JSON, its checks under `exactlyOnce`. */
export const measurePermit2Settle = async (context, { settleWarm, settleSigned, settlePayTo }) => {
  const { rpc, db, permit2, chain } = context
  say(
    `  permit2-settle: ${settleWarm.length} warm-up, then ${settleSigned.length} at concurrency ${context.concurrency}…`,
  )
  await sendPayments(context, 'settle', settleWarm, settleJudge)
  const fromBlock = Number(BigInt(await rpc.call('eth_blockNumber')))
  const before = await balances(rpc, permit2.token, [...settleSigned.map((s) => s.payer), settlePayTo])
  const { result, answers } = await measure(context, 'settle', settleSigned, settleJudge, 'permit2-settle')
  say('    checking every settlement on-chain and in the journal…')
  const check = await checkPermit2Settlements({
    rpc,
    db,
    token: permit2.token,
    facilitator: chain.facilitator.address,
    signed: settleSigned,
    answers,
    payTo: settlePayTo,
    fromBlock,
    balancesBefore: before,
  })
  say(
    `    ${check.ok ? 'all settled exactly once, receipts, balances and journal agree' : `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}; PROBLEMS: ${check.problems.join('; ')}`}`,
  )
  say(`    ${check.transactions.count} transactions, gas per transfer ${check.transactions.gasPerTransfer}`)
  return { ...result, concurrency: context.concurrency, chainBlockAtStart: fromBlock, exactlyOnce: check }
}
