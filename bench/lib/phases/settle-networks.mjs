// The settle phase with two networks (--networks 2): the same load as the one-network phase (--settle-warmup and
// --settle payments at --concurrency), split evenly over the networks and sent side by side (bench/lib/split-load.mjs);
// then each network's payments checked on its own chain and in the journal as the one-network phase does
// (bench/lib/checks.mjs), and against the other chain: nothing there for its payee, its journal rows its network's.
import { round, say } from '../basics.mjs'
import { balances, checkSettlements } from '../checks.mjs'
import { measure } from '../measure.mjs'
import { freshAddress, signBodies } from '../payments.mjs'
import { splitSender } from '../split-load.mjs'
import { settleJudge } from './settle.mjs'
import { VALUE_PER_PAYMENT } from './sign.mjs'

/** `total` shared out over `parts`, the first ones taking the remainder. */
const shareOf = (total, parts, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0)

/** Each network's warm-up and measured payments, to a fresh payee of its own. */
const signPerNetwork = async ({ config, networks }) => {
  const out = []
  for (const [i, network] of networks.entries()) {
    const payTo = freshAddress()
    const sign = (count, to) =>
      signBodies({
        count: shareOf(count, networks.length, i),
        payers: network.chain.payers,
        payTo: to,
        value: VALUE_PER_PAYMENT,
        network: network.name,
        domain: network.domain,
      })
    out.push({
      ...network,
      payTo,
      warm: await sign(config.settleWarmup, freshAddress()),
      signed: await sign(config.settle, payTo),
    })
  }
  return out
}

/** Problems of `network`'s payments seen from elsewhere: transfers to its payee on another chain, journal rows naming another network. */
const strayProblems = async ({ db }, network, networks) => {
  const problems = []
  for (const other of networks.filter((n) => n !== network)) {
    const held = (await balances(other.rpc, other.chain.token, [network.payTo])).get(network.payTo)
    if (held !== 0n) problems.push(`its payee holds ${held} on ${other.name}`)
  }
  const { rows } = await db.query('select count(*)::int as n from settlements where payee = $1 and network <> $2', [
    network.payTo,
    network.name,
  ])
  if (rows[0].n > 0) problems.push(`${rows[0].n} journal rows of its payee name another network`)
  return problems
}

/** Every network's payments checked on its own chain, then from the others; `answers` in the networks' order. */
const checkPerNetwork = async (context, perNetwork, answers) => {
  const checks = []
  let offset = 0
  for (const network of perNetwork) {
    const mine = answers.slice(offset, (offset += network.signed.length))
    const check = await checkSettlements({
      rpc: network.rpc,
      db: context.db,
      token: network.chain.token,
      facilitator: network.chain.facilitator.address,
      signed: network.signed,
      answers: mine,
      payTo: network.payTo,
      fromBlock: network.fromBlock,
      balancesBefore: network.balancesBefore,
    })
    const stray = await strayProblems(context, network, perNetwork)
    const problems = [...check.problems, ...stray]
    checks.push({ ...check, ok: problems.length === 0, exactlyOnce: check.exactlyOnce && stray.length === 0, problems })
  }
  return checks
}

/** The run's `signing` and `settle` JSON: the pair's figures as the one-network phase's, each network's under `networks`. */
export const measureSettleNetworks = async (context) => {
  const { networks, concurrency } = context
  const signStarted = performance.now()
  const perNetwork = await signPerNetwork(context)
  const signing = {
    payments: perNetwork.reduce((sum, n) => sum + n.warm.length + n.signed.length, 0),
    seconds: round((performance.now() - signStarted) / 1000, 2),
  }
  const names = networks.map((n) => n.name).join(' + ')
  const warmCount = perNetwork.reduce((sum, n) => sum + n.warm.length, 0)
  const count = perNetwork.reduce((sum, n) => sum + n.signed.length, 0)
  say(`  settle on ${names}: ${warmCount} warm-up, then ${count} at concurrency ${concurrency}, split evenly…`)
  await splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.warm })))(context, 'settle', [], settleJudge)
  for (const network of perNetwork) {
    network.fromBlock = Number(BigInt(await network.rpc.call('eth_blockNumber')))
    network.balancesBefore = await balances(network.rpc, network.chain.token, [
      ...network.signed.map((s) => s.payer),
      network.payTo,
    ])
  }
  const send = splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.signed })))
  const all = perNetwork.flatMap((n) => n.signed)
  const { result, answers } = await measure({ ...context, send }, 'settle', all, settleJudge, `settle (${names})`)
  say('    checking every settlement on its own chain, on the other, and in the journal…')
  const checks = await checkPerNetwork(context, perNetwork, answers)
  perNetwork.forEach((network, i) => {
    const figures = result.networks[network.name]
    const check = checks[i]
    say(
      `    ${network.name} (${network.caip2}): ${figures.rps} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ${figures.failures} failures; ` +
        (check.ok ? 'all settled exactly once on its own chain' : `PROBLEMS: ${check.problems.join('; ')}`),
    )
    result.networks[network.name] = {
      ...figures,
      caip2: network.caip2,
      chainBlockAtStart: network.fromBlock,
      exactlyOnce: check,
    }
  })
  const exactlyOnce = {
    ok: checks.every((c) => c.ok),
    exactlyOnce: checks.every((c) => c.exactlyOnce),
    problems: checks.flatMap((c, i) => c.problems.map((p) => `${perNetwork[i].name}: ${p}`)),
    replacedTransactions: checks.reduce((sum, c) => sum + c.replacedTransactions, 0),
    receipts: checks.reduce((sum, c) => sum + c.receipts, 0),
    journalRows: checks.reduce((sum, c) => sum + c.journalRows, 0),
  }
  return { signing, settle: { ...result, concurrency, exactlyOnce } }
}
