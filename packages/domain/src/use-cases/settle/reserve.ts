import * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import { inFlightKey, type Reservation } from '../../ports/payer-exposure.js'
import type { ValidPayment } from '../../ports/payment-mechanism.js'
import { refuseWithJournalContext } from './refuse.js'
import type { SettleContext, Step } from './settle-context.js'
import type { Turn } from './settle-outcome.js'

/**
 * Rule 9 again, atomically with taking the amount out of what later settles of this payer may spend (released by
 * `release`, the settle's last step).
 */
export const reserve = ({ deps, payment }: SettleContext, verdict: ValidPayment): O.Option<Reservation> => {
  const { payer, value, kind } = payment.exposure()
  return deps.exposure.reserve(payer, value, verdict.funds, kind)
}

/**
 * Not reserved: refused, unless this is the caller's retry of a settle in flight (its own amount is what is reserved):
 * the mechanism says why (the balance taken meanwhile, or what else of the payer's in flight stands in the way).
 */
export const refuseUnreserved = (ctx: SettleContext, verdict: ValidPayment): Step<Turn> =>
  refuseWithJournalContext(ctx, verdict.unreserved())

/**
 * The last step of a turn. A settle answered 202 keeps its amount until its row ends (recovery says when): its
 * transaction may still be mined. A payment sent alone on the next turn keeps it for that turn. Anything else — an
 * answer, a failure, a released row met (the next turn reserves anew) — releases it.
 */
export const release = (
  { key }: SettleContext,
  reservation: Reservation,
  result: E.Either<InfrastructureFailure, Turn>,
): E.Either<InfrastructureFailure, Turn> => {
  const turn = E.isRight(result) ? result.right : undefined
  if (turn?._tag === 'Alone') return result
  const pending = turn?._tag === 'Answer' && turn.outcome._tag === 'Pending'
  if (pending) reservation.keepUntilFinished(inFlightKey(key.payer, key.nonce))
  else reservation.release()
  return result
}
