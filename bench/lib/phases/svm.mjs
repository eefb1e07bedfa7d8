// The --solana phases: verify and settle of Solana `exact` payments (x402 v2 bodies, the official client's payloads:
// bench/lib/svm-payments.mjs) on the local SVM (bench/lib/setup/solana.mjs), served by the same service beside the EVM
// network. The load shape is EVM's (as many warm-up and measured requests, the same concurrency), each measured right
// after its EVM counterpart in the same run, so that their ratio compares like with like; the payments are signed a
// chunk at a time right before they are sent (a blockhash lives 15 s: bench/lib/chunked-measure.mjs).
import { say } from '../basics.mjs'
import { chunkPacer, measureInChunks, sendInChunks } from '../chunked-measure.mjs'
import { checkSvmSettlements, feePayerLamports, svmBalances } from '../svm-checks.mjs'
import { signSvmBodies, svmClients } from '../svm-payments.mjs'

const verifyJudge = (status, body) =>
  status === 200 && body?.isValid === true ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`
const settleJudge = (status, body) =>
  status === 200 && body?.success === true && body.transaction
    ? undefined
    : `${status} ${JSON.stringify(body).slice(0, 200)}`

/** A signer of chunks to `payTo` for the chunked load: (count, budgetMs) → payments. */
const signerTo =
  ({ solana, clients }, payTo) =>
  async (count, budgetMs) => {
    const signed = await signSvmBodies({ solana, clients, count, payTo, budgetMs })
    if (signed.length === 0) throw new Error('no Solana payment signed within its budget')
    return signed
  }

/** The run's Solana payers' clients and payees (each with its token account: the exact scheme never creates it). */
export const prepareSvmRun = async ({ solana }) => ({
  clients: svmClients(solana),
  verifyPayTo: await solana.call('payee'),
  settleWarmPayTo: await solana.call('payee'),
  settlePayTo: await solana.call('payee'),
})

const nodeRequestsOf = (solana) => () => solana.call('requests')

/** The run's `svmVerify` JSON. */
export const measureSvmVerify = async (context, run) => {
  const { config, solana } = context
  const sign = signerTo({ solana, clients: run.clients }, run.verifyPayTo)
  say(`  svm-verify: ${config.warmup} warm-up, then ${config.verify} at concurrency ${context.concurrency}…`)
  const pacer = chunkPacer()
  await sendInChunks(context, 'verify', { total: config.warmup, sign, judge: verifyJudge, pacer })
  const { result } = await measureInChunks(context, 'verify', {
    total: config.verify,
    sign,
    judge: verifyJudge,
    pacer,
    label: 'svm-verify',
    nodeRequests: nodeRequestsOf(solana),
  })
  return { ...result, concurrency: context.concurrency, network: solana.network }
}

/** The run's `svmSettle` JSON, its checks under `exactlyOnce`. */
export const measureSvmSettle = async (context, run) => {
  const { config, solana, db } = context
  say(`  svm-settle: ${config.settleWarmup} warm-up, then ${config.settle} at concurrency ${context.concurrency}…`)
  const pacer = chunkPacer()
  await sendInChunks(context, 'settle', {
    total: config.settleWarmup,
    sign: signerTo({ solana, clients: run.clients }, run.settleWarmPayTo),
    judge: settleJudge,
    pacer,
  })
  const payers = solana.payers.map((p) => p.address)
  const balancesBefore = await svmBalances(solana, [...payers, run.settlePayTo])
  const lamportsBefore = await feePayerLamports(solana)
  const { result, answers, signed } = await measureInChunks(context, 'settle', {
    total: config.settle,
    sign: signerTo({ solana, clients: run.clients }, run.settlePayTo),
    judge: settleJudge,
    pacer,
    label: 'svm-settle',
    nodeRequests: nodeRequestsOf(solana),
  })
  say('    checking every settlement on the local SVM and in the journal…')
  const check = await checkSvmSettlements({
    solana,
    db,
    signed,
    answers,
    payTo: run.settlePayTo,
    balancesBefore,
    lamportsBefore,
  })
  say(
    `    ${check.ok ? 'all settled exactly once, signatures, balances and journal agree' : `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}; PROBLEMS: ${check.problems.join('; ')}`}`,
  )
  say(`    fee payer lamports per settle ${check.feePayerLamportsPerSettle}`)
  return { ...result, concurrency: context.concurrency, network: solana.network, exactlyOnce: check }
}
