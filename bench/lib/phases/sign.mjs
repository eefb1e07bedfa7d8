// Before measuring: every payment of a run signed, each phase's to its own fresh payee.
import { round } from '../basics.mjs'
import { freshAddress, signBodies } from '../payments.mjs'
import { WEBHOOK_CHUNKS, chunkSize } from './webhook-chunks.mjs'

export const VALUE_PER_PAYMENT = 10_000n // 0.01 DUSD

/** The payments of one run for the phases in `config.phases`, and `signing`: how many and how long it took. */
export const signPayments = async ({ config, chain, wallets, network, domain }) => {
  const phase = (name) => config.phases.has(name)
  const sign = async (count, payTo, payers = chain.payers) =>
    signBodies({ count, payers, payTo, value: VALUE_PER_PAYMENT, network, domain })
  const signStarted = performance.now()
  const verifyPayTo = freshAddress()
  const settlePayTo = freshAddress()
  const ceilingPayTo = freshAddress()
  const verifyWarm = phase('verify') ? await sign(config.warmup, verifyPayTo) : []
  const verifySigned = phase('verify') ? await sign(config.verify, verifyPayTo) : []
  // The wallets' owners sign; the bodies name the wallet as payer (`from`).
  const walletPayTo = freshAddress()
  const walletWarm = phase('wallet-verify') ? await sign(config.warmup, walletPayTo, wallets) : []
  const walletSigned = phase('wallet-verify') ? await sign(config.verify, walletPayTo, wallets) : []
  const settleWarm = await sign(phase('settle') ? config.settleWarmup : 0, freshAddress())
  const settleSigned = phase('settle') ? await sign(config.settle, settlePayTo) : []
  // Its own fresh payee too: the batched phase's checks count every transfer to it.
  const batchedPayTo = freshAddress()
  const batchedWarm = phase('batched-settle') ? await sign(config.batchedWarmup, freshAddress()) : []
  const batchedSigned = phase('batched-settle') ? await sign(config.batchedSettle, batchedPayTo) : []
  // The webhook-settle phase measures each service in WEBHOOK_CHUNKS chunks (A B B A, twice), each checked alone: a payee
  // per chunk.
  const chunks = async (payTos) => {
    if (!phase('webhook-settle')) return []
    const signed = []
    for (const [i, payTo] of payTos.entries()) signed.push(...(await sign(chunkSize(config.settle, i), payTo)))
    return signed
  }
  const webhookPayTo = Array.from({ length: WEBHOOK_CHUNKS }, freshAddress)
  const webhookWarm = phase('webhook-settle') ? await sign(config.settleWarmup, freshAddress()) : []
  const webhookSigned = await chunks(webhookPayTo)
  const controlPayTo = Array.from({ length: WEBHOOK_CHUNKS }, freshAddress)
  const controlWarm = phase('webhook-settle') ? await sign(config.settleWarmup, freshAddress()) : []
  const controlSigned = await chunks(controlPayTo)
  const ceilingSigned = phase('limits') || phase('batched-settle') ? await sign(config.ceiling, ceilingPayTo) : []
  const all = [
    verifyWarm,
    verifySigned,
    walletWarm,
    walletSigned,
    settleWarm,
    settleSigned,
    batchedWarm,
    batchedSigned,
    webhookWarm,
    webhookSigned,
    controlWarm,
    controlSigned,
    ceilingSigned,
  ]
  return {
    verifyWarm,
    verifySigned,
    walletWarm,
    walletSigned,
    settleWarm,
    settleSigned,
    settlePayTo,
    batchedWarm,
    batchedSigned,
    batchedPayTo,
    webhookWarm,
    webhookSigned,
    webhookPayTo,
    controlWarm,
    controlSigned,
    controlPayTo,
    ceilingSigned,
    signing: {
      payments: all.reduce((sum, list) => sum + list.length, 0),
      seconds: round((performance.now() - signStarted) / 1000, 2),
    },
  }
}
