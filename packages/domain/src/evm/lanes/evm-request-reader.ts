import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { FacilitatorPolicy } from '../../model/payment.js'
import type { PaymentRequest } from '../model/evm-payment.js'
import type { Clock } from '../../ports/clock.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { RequestReader } from '../../ports/request-reader.js'
import type { AnyPaymentRequest } from '../model/permit2-payment.js'
import { unixSeconds } from '../rules/request-rules.js'
import { paymentOf } from '../rules/transfer-rules.js'

/**
 * The payment an EVM request makes (a Permit2 one read onto the authorization fields, after its own rules). An `upto`
 * payment may be sent only by the key its witness names (docs/ARCHITECTURE.md §5.8); that key may be one of another
 * replica of this deployment (a replica holds its lock): it is judged as one of ours, and only that replica can send it.
 */
export const evmRequestReader =
  (deps: {
    readonly policy: FacilitatorPolicy
    readonly clock: Clock
    readonly liveness: ReplicaLiveness
  }): RequestReader<AnyPaymentRequest, PaymentRequest> =>
  async (request, phase) => {
    const { policy, clock, liveness } = deps
    const context = { policy, now: unixSeconds(clock.now()), phase }
    const read = await readOwningLiveKeys(request, context, liveness)
    return pipe(
      read,
      E.map((payment) => ({ payment, sender: payment.payload.authorization.permit2?.facilitator })),
    )
  }

/** `paymentOf`, counting a witness's key as ours while a replica of this deployment holds it. */
const readOwningLiveKeys = async (
  request: AnyPaymentRequest,
  context: Parameters<typeof paymentOf>[1],
  liveness: ReplicaLiveness,
) => {
  const read = paymentOf(request, context)
  if (E.isRight(read) || read.left.failure._tag !== 'UptoFacilitatorMismatch') return read
  const key = read.left.failure.facilitator
  const alive = key === undefined ? E.right(false) : await liveness.isAlive(key)()
  if (key === undefined || !E.isRight(alive) || !alive.right) return read
  const keys = [...(context.policy.uptoFacilitators ?? []), key]
  return paymentOf(request, { ...context, policy: { ...context.policy, uptoFacilitators: keys } })
}
