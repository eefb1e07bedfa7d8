// The --solana phases' rows in the report: Solana `exact` verify and settle each as a share of its EVM counterpart of
// the same run (same service, same load shape), the only comparison a shared machine allows.
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

export const svmRows = (r) => [
  ...(r.svmVerify ? [row(r.run, 'verify Solana', r.svmVerify, r.verify, 'of verify (EVM, EIP-3009)')] : []),
  ...(r.svmSettle ? [row(r.run, 'settle Solana', r.svmSettle, r.settle, 'of settle (EVM, EIP-3009)')] : []),
]

/** Service CPU per request of Solana against EVM, the Solana node's requests, and the Solana settle's checks. */
export const svmLines = (r) => {
  const parts = []
  for (const [name, svm, evm] of [
    ['verify', r.svmVerify, r.verify],
    ['settle', r.svmSettle, r.settle],
  ]) {
    if (!svm) continue
    const cpu = evm
      ? `service CPU ${svm.serviceCpuUsPerRequest} µs against ${evm.serviceCpuUsPerRequest} (${share(svm.serviceCpuUsPerRequest, evm.serviceCpuUsPerRequest)})`
      : `service CPU ${svm.serviceCpuUsPerRequest} µs`
    parts.push(`${name} ${cpu}, ${svm.nodeRequestsPerRequest} Solana node requests per request`)
  }
  const check = r.svmSettle?.exactlyOnce
  if (check)
    parts.push(
      `settle exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}, answers match: ${check.ok ? 'yes' : check.problems.join('; ')}, fee payer lamports per settle ${check.feePayerLamportsPerSettle}`,
    )
  return parts.length > 0 ? [`run ${r.run}: Solana exact against EVM: ${parts.join('; ')}`] : []
}
