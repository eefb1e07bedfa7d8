// The targets of bench/README.md, each judged met or missed for every run.
import { round } from '../basics.mjs'
import { share } from './table.mjs'

/** { targets: [{ name, value, target, met }], rssGrowth (percent, with more than one run), allMet } */
export const evaluate = (runs) => {
  const targets = []
  const add = (name, value, target, met) => targets.push({ name, value, target, met })
  const last = runs[runs.length - 1]
  for (const r of runs) {
    const tag = runs.length > 1 ? ` (run ${r.run})` : ''
    if (r.verify) {
      add(`verify req/s${tag}`, r.verify.rps, '≥ 3000', r.verify.rps >= 3000)
      add(`verify p99${tag}`, `${r.verify.p99Ms} ms`, '≤ 50 ms', r.verify.p99Ms <= 50)
      add(`verify failures${tag}`, r.verify.failures, '0', r.verify.failures === 0)
      add(
        `verify service CPU per request${tag}`,
        `${r.verify.serviceCpuUsPerRequest} µs`,
        '≤ 250 µs',
        r.verify.serviceCpuUsPerRequest <= 250,
      )
    }
    // Solana (--solana): no speed target of its own yet; its answers and settlements are held as EVM's are.
    if (r.svmVerify) add(`Solana verify failures${tag}`, r.svmVerify.failures, '0', r.svmVerify.failures === 0)
    if (r.svmSettle)
      settleChecks(
        add,
        'Solana settle',
        tag,
        r.svmSettle,
        'every answered signature executed, one attempt, journal names it',
      )
    if (r.walletVerify) add(`wallet-verify failures${tag}`, r.walletVerify.failures, '0', r.walletVerify.failures === 0)
    const ceiling = r.nodeCeiling?.perSecond
    if (r.settle) {
      add(
        `settle req/s${tag}`,
        `${r.settle.rps} (${share(r.settle.rps, ceiling)} of the node's ${ceiling ?? '?'})`,
        '≥ 60 % of the node ceiling',
        ceiling !== undefined && r.settle.rps >= 0.6 * ceiling,
      )
      add(`settle p99${tag}`, `${r.settle.p99Ms} ms`, '≤ 250 ms', r.settle.p99Ms <= 250)
      settleChecks(add, 'settle', tag, r.settle, 'every answered tx mined, one attempt, journal names it')
    }
    if (r.webhookSettle) {
      const w = r.webhookSettle
      add(
        `settle req/s with one webhook endpoint${tag}`,
        `${w.rps} (${share(w.rps, w.control.rps)} of ${w.control.rps} without, A B B A twice)`,
        '≥ 90 % of settle without',
        w.rps >= 0.9 * w.control.rps,
      )
      settleChecks(add, 'webhook settle', tag, w, 'every answered tx mined, one attempt, journal names it')
      add(
        `webhook deliveries${tag}`,
        `${w.deliveries.pendingAfter} pending, ${w.deliveries.badSignatures} bad of ${w.deliveries.signaturesChecked} signatures checked`,
        'all delivered, every signature checked valid',
        w.deliveries.pendingAfter === 0 && w.deliveries.badSignatures === 0,
      )
    }
    if (r.batchedSettle) {
      const b = r.batchedSettle
      const loneGas = r.settle?.exactlyOnce.transactions.gasPerTransfer
      const gas = b.exactlyOnce.transactions.gasPerTransfer
      add(
        `batched settle payments/s${tag}`,
        `${b.rps} (${share(b.rps, ceiling)} of the node's ${ceiling ?? '?'})`,
        '≥ 200 % of the node ceiling',
        ceiling !== undefined && b.rps >= 2 * ceiling,
      )
      add(`batched settle p99${tag}`, `${b.p99Ms} ms`, '≤ 250 ms', b.p99Ms <= 250)
      add(
        `batched settle gas per transfer${tag}`,
        `${gas} (${share(gas, loneGas)} of lone's ${loneGas ?? '?'})`,
        '≤ 75 % of a lone transfer',
        loneGas !== undefined && gas <= 0.75 * loneGas,
      )
      settleChecks(
        add,
        'batched settle',
        tag,
        b,
        'every answered tx mined (a batch: the payment its own successful item), one attempt, journal names it and the item',
      )
    }
  }
  add('service RSS at the end', `${last.serviceMemory.rssMiB} MiB`, '≤ 250 MiB', last.serviceMemory.rssMiB <= 250)
  let rssGrowth
  if (runs.length > 1) {
    rssGrowth = round(
      (100 * (last.serviceMemory.rssMiB - runs[0].serviceMemory.rssMiB)) / runs[0].serviceMemory.rssMiB,
      1,
    )
    add(`RSS growth run 1 → ${runs.length}`, `${rssGrowth} %`, '< 10 %', rssGrowth < 10)
  }
  return { targets, rssGrowth, allMet: targets.every((t) => t.met) }
}

/** The targets every settle phase shares: no failure, exactly once, answers agreeing with the chain and the journal. */
const settleChecks = (add, label, tag, phase, matchTarget) => {
  add(`${label} failures${tag}`, phase.failures, '0', phase.failures === 0)
  add(
    `${label} exactly once${tag}`,
    phase.exactlyOnce.exactlyOnce ? 'yes' : 'no',
    'every authorization transferred once on-chain, balances, journal confirmed',
    phase.exactlyOnce.exactlyOnce,
  )
  add(
    `${label} answers match chain and journal${tag}`,
    phase.exactlyOnce.ok ? 'yes' : phase.exactlyOnce.problems.join('; '),
    matchTarget,
    phase.exactlyOnce.ok,
  )
}

/** A missed speed target is a finding, not a failed run; a failed request or a settle check that failed is. */
export const allAnswersCorrect = (runs) =>
  runs.every(
    (r) =>
      (r.verify?.failures ?? 0) === 0 &&
      (r.walletVerify?.failures ?? 0) === 0 &&
      (r.permit2Verify?.failures ?? 0) === 0 &&
      (r.svmVerify?.failures ?? 0) === 0 &&
      [r.settle, r.batchedSettle, r.permit2Settle, r.svmSettle, r.webhookSettle, r.webhookSettle?.control].every(
        (phase) => !phase || (phase.failures === 0 && phase.exactlyOnce.ok),
      ),
  )
