// The verify phase with two networks (--networks 2): the one-network phase's load (--warmup, then --verify payments at
// --concurrency) split evenly over the networks and sent side by side (bench/lib/split-load.mjs); every answer must be
// 200 {valid:true}, as in bench/lib/phases/verify.mjs.
import { say } from '../basics.mjs'
import { measure } from '../measure.mjs'
import { announce, figuresLine } from '../network-payments.mjs'
import { splitSender } from '../split-load.mjs'
import { verifyJudge } from './verify.mjs'

/** The run's `verify` JSON: the pair's figures as the one-network phase's, each network's under `networks`. */
export const measureVerifyNetworks = async (context, perNetwork) => {
  const names = perNetwork.map((n) => n.name).join(' + ')
  announce('verify', perNetwork, 'verifyWarm', 'verifySigned', context.concurrency)
  await splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.verifyWarm })))(context, 'verify', [], verifyJudge)
  const send = splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.verifySigned })))
  const all = perNetwork.flatMap((n) => n.verifySigned)
  const { result } = await measure({ ...context, send }, 'verify', all, verifyJudge, `verify (${names})`)
  for (const n of perNetwork) {
    const f = result.networks[n.name]
    say(`    ${figuresLine(n, f)}`)
    result.networks[n.name] = { ...f, caip2: n.caip2 }
  }
  return result
}
