// The payments of one run with two networks (--networks 2): each phase's count (--warmup, --verify, --settle-warmup,
// --settle) split evenly over the networks, each network's signed for it (its name, its token's domain), each measured
// phase's to a fresh payee of its own per network.
import { round, say } from './basics.mjs'
import { freshAddress, signBodies } from './payments.mjs'
import { VALUE_PER_PAYMENT } from './phases/sign.mjs'

/** `total` shared out over `parts`, the first ones taking the remainder. */
const shareOf = (total, parts, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0)

/**
 * { perNetwork: [{ ...network, verifyWarm, verifySigned, settleWarm, settleSigned, payTo (the settle phase's) }],
 * signing } for the phases in `config.phases`.
 */
export const signPerNetwork = async ({ config, networks }) => {
  const phase = (name) => config.phases.has(name)
  const started = performance.now()
  const perNetwork = []
  for (const [i, network] of networks.entries()) {
    const sign = (count, payTo) =>
      signBodies({
        count: shareOf(count, networks.length, i),
        payers: network.chain.payers,
        payTo,
        value: VALUE_PER_PAYMENT,
        network: network.name,
        domain: network.domain,
      })
    const verifyPayTo = freshAddress()
    const payTo = freshAddress()
    perNetwork.push({
      ...network,
      verifyWarm: phase('verify') ? await sign(config.warmup, verifyPayTo) : [],
      verifySigned: phase('verify') ? await sign(config.verify, verifyPayTo) : [],
      settleWarm: phase('settle') ? await sign(config.settleWarmup, freshAddress()) : [],
      settleSigned: phase('settle') ? await sign(config.settle, payTo) : [],
      payTo,
    })
  }
  const lists = perNetwork.flatMap((n) => [n.verifyWarm, n.verifySigned, n.settleWarm, n.settleSigned])
  return {
    perNetwork,
    signing: {
      payments: lists.reduce((sum, list) => sum + list.length, 0),
      seconds: round((performance.now() - started) / 1000, 2),
    },
  }
}

/** The sum of `key`'s lengths over the networks. */
export const countOf = (perNetwork, key) => perNetwork.reduce((sum, n) => sum + n[key].length, 0)

/** The line a two-network phase starts with. */
export const announce = (label, perNetwork, warmKey, key, concurrency) =>
  say(
    `  ${label} on ${perNetwork.map((n) => n.name).join(' + ')}: ${countOf(perNetwork, warmKey)} warm-up, ` +
      `then ${countOf(perNetwork, key)} at concurrency ${concurrency}, split evenly…`,
  )

/** One network's figures (bench/lib/split-load.mjs) in a line. */
export const figuresLine = ({ name, caip2 }, f) =>
  `${name} (${caip2}): ${f.rps} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.failures} failures`
