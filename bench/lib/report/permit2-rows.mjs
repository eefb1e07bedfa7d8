// The permit2 phase's rows in the report: each Permit2 `exact` phase as a share of its EIP-3009 counterpart of the
// same run (same service, same load shape), the only comparison a shared machine allows.
import { share } from './table.mjs'

const row = (run, label, phase, yardstick, limit) => [
  run,
  label,
  phase.requests,
  phase.rps,
  phase.p50Ms,
  phase.p99Ms,
  phase.failures,
  phase.serviceCpuUsPerRequest,
  share(phase.rps, yardstick?.rps),
  limit,
]

export const permit2Rows = (r) => [
  ...(r.permit2Verify ? [row(r.run, 'verify Permit2', r.permit2Verify, r.verify, 'of verify (EIP-3009)')] : []),
  ...(r.permit2Settle ? [row(r.run, 'settle Permit2', r.permit2Settle, r.settle, 'of settle (EIP-3009)')] : []),
]

/** CPU per request and gas per transfer of Permit2 against EIP-3009, and the Permit2 settle's checks. */
export const permit2Lines = (r) => {
  const lines = []
  const cpu = (p2, eip3009, name) =>
    p2 && eip3009
      ? `${name} service CPU ${p2.serviceCpuUsPerRequest} µs against ${eip3009.serviceCpuUsPerRequest} (${share(p2.serviceCpuUsPerRequest, eip3009.serviceCpuUsPerRequest)})`
      : undefined
  const parts = [cpu(r.permit2Verify, r.verify, 'verify'), cpu(r.permit2Settle, r.settle, 'settle')].filter(Boolean)
  const settle = r.permit2Settle
  if (settle) {
    const lone = r.settle?.exactlyOnce.transactions.gasPerTransfer
    const gas = settle.exactlyOnce.transactions.gasPerTransfer
    parts.push(`gas per transfer ${gas} against ${lone ?? '—'} (${share(gas, lone)})`)
    const check = settle.exactlyOnce
    parts.push(
      `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}, answers match: ${check.ok ? 'yes' : check.problems.join('; ')}`,
    )
  }
  if (parts.length > 0) lines.push(`run ${r.run}: Permit2 exact against EIP-3009: ${parts.join('; ')}`)
  return lines
}
