// The settle phase with two networks (--networks 2): the one-network phase's load (--settle-warmup, then --settle
// payments at --concurrency) split evenly over the networks and sent side by side (bench/lib/split-load.mjs);
// then each network's payments checked on its own chain and in the journal as the one-network phase does
// (bench/lib/checks.mjs), and against the other chain: nothing there for its payee, its journal rows its network's.
import { say } from '../basics.mjs'
import { balances, checkSettlements } from '../checks.mjs'
import { measure } from '../measure.mjs'
import { announce, figuresLine } from '../network-payments.mjs'
import { splitSender } from '../split-load.mjs'
import { settleJudge } from './settle.mjs'

/**
 * Problems of `network`'s payments seen from elsewhere: transfers to its payee on another chain, journal rows naming
 * another network.
 */
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
    const mine = answers.slice(offset, (offset += network.settleSigned.length))
    const check = await checkSettlements({
      rpc: network.rpc,
      db: context.db,
      token: network.chain.token,
      facilitator: network.chain.facilitator.address,
      signed: network.settleSigned,
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

/** The run's `settle` JSON: the pair's figures as the one-network phase's, each network's under `networks`. */
export const measureSettleNetworks = async (context, perNetwork) => {
  const { concurrency } = context
  const names = perNetwork.map((n) => n.name).join(' + ')
  announce('settle', perNetwork, 'settleWarm', 'settleSigned', concurrency)
  await splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.settleWarm })))(context, 'settle', [], settleJudge)
  for (const network of perNetwork) {
    network.fromBlock = Number(BigInt(await network.rpc.call('eth_blockNumber')))
    network.balancesBefore = await balances(network.rpc, network.chain.token, [
      ...network.settleSigned.map((s) => s.payer),
      network.payTo,
    ])
  }
  const send = splitSender(perNetwork.map((n) => ({ name: n.name, signed: n.settleSigned })))
  const all = perNetwork.flatMap((n) => n.settleSigned)
  const { result, answers } = await measure({ ...context, send }, 'settle', all, settleJudge, `settle (${names})`)
  say('    checking every settlement on its own chain, on the other, and in the journal…')
  const checks = await checkPerNetwork(context, perNetwork, answers)
  perNetwork.forEach((network, i) => {
    const figures = result.networks[network.name]
    const check = checks[i]
    say(
      `    ${figuresLine(network, figures)}; ` +
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
  return { ...result, concurrency, exactlyOnce }
}
