// The report printed at the end: a row per measured phase of each run with its share of the limit it is judged
// against, then each run's memory and checks, then the targets met or missed.
import os from 'node:os'
import { round } from '../basics.mjs'
import { permit2Lines, permit2Rows } from './permit2-rows.mjs'
import { svmLines, svmRows } from './svm-rows.mjs'

/** `x` as a share of `limit` ("42 %"), or "—" when either is unknown. */
export const share = (x, limit) =>
  Number.isFinite(x) && Number.isFinite(limit) && limit > 0 ? `${round((100 * x) / limit, 0)} %` : '—'

/** Two networks: each one's own figures, under the pair's row (its CPU is the pair's, in that row). */
const networkRows = (run, label, phase) =>
  Object.entries(phase?.networks ?? {}).map(([name, n]) => [
    run,
    ` ${label} ${name}`,
    n.requests,
    n.rps,
    n.p50Ms,
    n.p99Ms,
    n.failures,
    '',
    '',
    `${n.caip2}, c=${n.concurrency}`,
  ])

const phaseRows = (r) => {
  const rows = []
  if (r.verify)
    rows.push([
      r.run,
      'verify',
      r.verify.requests,
      r.verify.rps,
      r.verify.p50Ms,
      r.verify.p99Ms,
      r.verify.failures,
      r.verify.serviceCpuUsPerRequest,
      share(r.verify.rps, r.recoveries?.perSecond),
      r.recoveries ? `${r.recoveries.perSecond} sig checks/s (1 core)` : '—',
    ])
  rows.push(...networkRows(r.run, 'verify', r.verify))
  if (r.httpFloor)
    rows.push([
      r.run,
      ' /healthz',
      r.httpFloor.requests,
      r.httpFloor.rps,
      '',
      '',
      r.httpFloor.failures,
      r.httpFloor.serviceCpuUsPerRequest,
      '',
      'HTTP floor: koa + middleware, no work',
    ])
  if (r.walletVerify)
    rows.push([
      r.run,
      'verify ERC-1271',
      r.walletVerify.requests,
      r.walletVerify.rps,
      r.walletVerify.p50Ms,
      r.walletVerify.p99Ms,
      r.walletVerify.failures,
      r.walletVerify.serviceCpuUsPerRequest,
      share(r.walletVerify.rps, r.verify?.rps),
      r.verify ? `of verify (EOA payers); ${r.walletVerify.wallets} wallets` : '—',
    ])
  if (r.settle)
    rows.push([
      r.run,
      'settle',
      r.settle.requests,
      r.settle.rps,
      r.settle.p50Ms,
      r.settle.p99Ms,
      r.settle.failures,
      r.settle.serviceCpuUsPerRequest,
      share(r.settle.rps, r.nodeCeiling?.perSecond),
      r.nodeCeiling?.perSecond ? `${r.nodeCeiling.perSecond} tx/s node ceiling` : '—',
    ])
  rows.push(...networkRows(r.run, 'settle', r.settle))
  rows.push(...permit2Rows(r))
  rows.push(...svmRows(r))
  if (r.batchedSettle)
    rows.push([
      r.run,
      'batched settle',
      r.batchedSettle.requests,
      r.batchedSettle.rps,
      r.batchedSettle.p50Ms,
      r.batchedSettle.p99Ms,
      r.batchedSettle.failures,
      r.batchedSettle.serviceCpuUsPerRequest,
      share(r.batchedSettle.rps, r.nodeCeiling?.perSecond),
      r.nodeCeiling?.perSecond ? `${r.nodeCeiling.perSecond} tx/s node ceiling; c=${r.batchedSettle.concurrency}` : '—',
    ])
  if (r.webhookSettle)
    rows.push([
      r.run,
      'settle + webhook',
      r.webhookSettle.requests,
      r.webhookSettle.rps,
      r.webhookSettle.p50Ms,
      r.webhookSettle.p99Ms,
      r.webhookSettle.failures,
      r.webhookSettle.serviceCpuUsPerRequest,
      share(r.webhookSettle.rps, r.webhookSettle.control.rps),
      `of ${r.webhookSettle.control.rps} without; ${r.webhookSettle.deliveries.distinctEvents} events delivered`,
    ])
  if (r.settle && r.pgInserts)
    rows.push([
      r.run,
      ' journal',
      `${r.settle.requests * 3} writes`,
      round(r.settle.rps * 3),
      '',
      '',
      '',
      '',
      share(r.settle.rps * 3, r.pgInserts.perSecond),
      `${r.pgInserts.perSecond} pg inserts/s`,
    ])
  return rows
}

/** Numbers right-aligned, text left-aligned, each column as wide as its widest cell. */
const aligned = (rows) => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)))
  const line = (row) =>
    row
      .map((cell, c) => (typeof cell === 'number' ? String(cell).padStart(widths[c]) : String(cell).padEnd(widths[c])))
      .join('  ')
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)]
}

const checksOf = (label, phase) =>
  phase
    ? `; ${label} exactly once: ${phase.exactlyOnce.exactlyOnce ? 'yes' : 'NO'}, answers match: ${phase.exactlyOnce.ok ? 'yes' : phase.exactlyOnce.problems.join('; ')}`
    : ''

/** Gas per transfer of each settle phase (the distinct transactions' gasUsed over the payments), and the batches. */
const gasLine = (r) => {
  const lone = r.settle?.exactlyOnce.transactions
  const batched = r.batchedSettle?.exactlyOnce.transactions
  if (!batched) return []
  return [
    `run ${r.run}: gas per transfer: lone ${lone?.gasPerTransfer ?? '—'}, batched ${batched.gasPerTransfer} (${share(batched.gasPerTransfer, lone?.gasPerTransfer)} of lone); ` +
      `batched: ${batched.count} transactions, ${batched.batches} settler batches of ${round(batched.meanBatchSize ?? 0)} payments on average ` +
      `(largest ${batched.largestBatch ?? 0}, BATCH_MAX_ITEMS ${r.batchedSettle.batchMaxItems}), ${batched.lone} lone; ${round(batched.paymentsPerTransaction ?? 0)} payments per transaction`,
  ]
}

/**
 * The CPU each settle phase cost per payment, by process, and the rate that much CPU allows on this machine's cores at
 * best: the bound a CPU-bound phase meets (the load generator's share included, other tenants' not).
 */
const cpuLine = (r) =>
  [
    ['settle', r.settle],
    ['batched settle', r.batchedSettle],
    ['settle Permit2', r.permit2Settle],
    ['settle Solana', r.svmSettle],
  ]
    .filter(([, phase]) => phase)
    .map(([label, phase]) => {
      const perPayment = Object.entries(phase.cpuMsByProcess).map(([name, ms]) => [name, ms / phase.requests])
      const total = perPayment.reduce((sum, [, ms]) => sum + ms, 0)
      const parts = perPayment.map(([name, ms]) => `${name} ${round(ms, 2)}`).join(', ')
      return `run ${r.run}: ${label} CPU ms per payment: ${parts} (total ${round(total, 2)}: at most ${round((os.cpus().length * 1000) / total, 0)}/s on ${os.cpus().length} cores); cores busy ${phase.cpuCoresBusy}`
    })

const runLine = (r) =>
  `run ${r.run}: service RSS ${r.serviceMemory.rssMiB} MiB, peak (VmHWM) ${r.serviceMemory.hwmMiB} MiB${checksOf('settle', r.settle)}${checksOf('batched settle', r.batchedSettle)}`

/** The report's text for `runs` and the `summary` of bench/lib/report/targets.mjs. */
export const table = (runs, summary) => {
  const header = [
    'run',
    'phase',
    'requests',
    'req/s',
    'p50 ms',
    'p99 ms',
    'failures',
    'svc CPU µs/req',
    'of limit',
    'limit',
  ]
  const out = aligned([header, ...runs.flatMap(phaseRows)])
  out.push('')
  out.push(...runs.map(runLine))
  out.push(...runs.flatMap(gasLine))
  out.push(...runs.flatMap(permit2Lines))
  out.push(...runs.flatMap(svmLines))
  out.push(...runs.flatMap(cpuLine))
  if (summary.rssGrowth !== undefined) out.push(`RSS growth run 1 → ${runs.length}: ${summary.rssGrowth} %`)
  out.push('')
  out.push('targets:')
  for (const t of summary.targets)
    out.push(`  ${t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value} (target ${t.target})`)
  return out.join('\n')
}
