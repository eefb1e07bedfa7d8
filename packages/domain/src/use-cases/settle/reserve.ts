import * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { InfrastructureFailure } from '../../model/failures.js'
import { inFlightKey, paymentKindOf, permit2Conflict, type Reservation } from '../../ports/payer-exposure.js'
import type { PayerState } from '../../ports/token-reader.js'
import { insufficientFunds } from '../../rules/chain-rules.js'
import { refuseWithJournalContext } from './refuse.js'
import type { SettleContext, Step } from './settle-context.js'
import type { Turn } from './settle-outcome.js'

/**
 * Rule 9 again, atomically with taking the amount out of what later settles of this payer may spend (released by
 * `release`, the settle's last step).
 */
export const reserve = ({ deps, request }: SettleContext, state: PayerState): O.Option<Reservation> => {
  const { from, value, permit2 } = request.payload.authorization
  return deps.exposure.reserve(from, value, state.balance, paymentKindOf(permit2))
}

/**
 * Not reserved: refused, unless this is the caller's retry of a settle in flight (its own amount is what is reserved):
 * the balance taken meanwhile, or (rule 9′) a sponsored permit meeting another Permit2 payment of the payer's.
 */
export const refuseUnreserved = (ctx: SettleContext, state: PayerState): Step<Turn> => {
  const { authorization } = ctx.request.payload
  const inFlight = ctx.deps.exposure.inFlight(authorization.from)
  const permit2InFlight = ctx.deps.exposure.permit2InFlight(authorization.from)
  const conflict = permit2Conflict(paymentKindOf(authorization.permit2), permit2InFlight)
  return refuseWithJournalContext(
    ctx,
    conflict === undefined
      ? insufficientFunds(state, inFlight, authorization)
      : { _tag: 'Permit2AllowanceInFlight', conflict, payments: permit2InFlight.payments },
  )
}

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
