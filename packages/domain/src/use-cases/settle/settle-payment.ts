import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { chainUnavailable, type InfrastructureFailure } from '../../model/failures.js'
import type { Payment, PaymentReader } from '../../ports/payment-mechanism.js'
import type { Reservation } from '../../ports/payer-exposure.js'
import type { SubmissionItem } from '../../ports/submissions.js'
import { answerExisting, awaitOutcome, isWithinIdempotencyWindow } from './await-row.js'
import { refuseSending, refuseWithJournalContext, sendingRefusal } from './refuse.js'
import { release, refuseUnreserved, reserve } from './reserve.js'
import { newSettlement, type SettleContext, type SettleDeps, type SettleOptions, type Step } from './settle-context.js'
import { answer, settleAnswers, type SettleOutcome, type Turn } from './settle-outcome.js'
import { submit } from './submit.js'
import { waive } from './waive.js'

export type { SettleDeps, SettleOptions } from './settle-context.js'
export type { SettledOutcome, SettleOutcome } from './settle-outcome.js'

/**
 * The most turns one settle takes. A turn ends in an answer, or leads to another: the row it met was released
 * (nothing of it reached the chain: settled anew, from verify), or its batch did not run its payment (sent alone).
 * Each needs another request's claim or a batch in between; past the bound the answer is a 503, nothing in flight.
 */
export const MAX_SETTLE_TURNS = 8

/**
 * docs/ARCHITECTURE.md §5, one settle top to bottom: a retry under its `Idempotency-Key` awaits its row; otherwise
 * verify → reserve → claim → submit or join a batch → await the receipt → record it → release, in turns
 * (`inTurns`). Infrastructure failures are answered (503) only while nothing has been broadcast. The answer that leaves
 * says how deep its block is (`confirmations`).
 */
export const settlePayment =
  <P>(
    request: P,
    options: SettleOptions,
  ): RTE.ReaderTaskEither<
    SettleDeps & { readonly mechanism: PaymentReader<P> },
    InfrastructureFailure,
    SettleOutcome
  > =>
  (deps) => {
    const ctx = settleContext(deps.mechanism.paymentOf(request), options, deps)
    return pipe(
      retryUnderKey(ctx),
      TE.chain((first) => inTurns(ctx, first)),
      // With nothing waited for, the answer says how deep its block is (`confirmations`, docs/ARCHITECTURE.md §5.6).
      TE.map((outcome) => (ctx.waitsForFinal ? outcome : withConfirmations(ctx, outcome))),
    )
  }

/** docs/ARCHITECTURE.md §5.2: a retry under the same key awaits the stored outcome; another request under it, 409. */
const retryUnderKey = (ctx: SettleContext): Step<Turn> => {
  const { idempotencyKey, requestHash } = ctx.options
  const anew = (): Step<Turn> => TE.right({ _tag: 'Anew' })
  if (idempotencyKey === undefined) return anew()
  return pipe(
    ctx.deps.journal.findByIdempotencyKey(idempotencyKey),
    TE.map(O.filter(isWithinIdempotencyWindow(ctx))),
    TE.chainW(
      O.match(anew, (row) =>
        row.requestHash !== requestHash
          ? TE.right(answer(ctx.answer.idempotencyConflict()))
          : awaitOutcome(ctx, row, 'keyed'),
      ),
    ),
  )
}

/**
 * Turns until an answer, at most `MAX_SETTLE_TURNS`: a turn that met the payment's row released starts again from
 * verify (`Anew`); one whose batch did not run the payment sends it alone (`Alone`), still holding its reservation.
 */
const inTurns =
  (ctx: SettleContext, first: Turn): Step<SettleOutcome> =>
  async () => {
    let next = first
    for (let turn = 1; next._tag !== 'Answer'; turn++) {
      if (turn > MAX_SETTLE_TURNS) {
        if (next._tag === 'Alone') next.reservation.release()
        const reason = `the payment's row was released ${MAX_SETTLE_TURNS} times while settling it; try again`
        return E.left(chainUnavailable(reason))
      }
      const result = await (next._tag === 'Anew' ? settleAnew(ctx) : sendAlone(ctx, next))()
      if (E.isLeft(result)) return result
      next = result.right
    }
    return E.right(next.outcome)
  }

/** One turn from the top: 1. verify, 2. reserve, then `claimAndSubmit` (an `upto` settle of 0: `waive`). */
const settleAnew = (ctx: SettleContext): Step<Turn> => {
  const asSigned = ctx.payment.waiver()
  return asSigned === undefined ? settleAndSend(ctx) : waive(ctx, asSigned)
}

const settleAndSend = (ctx: SettleContext): Step<Turn> =>
  pipe(
    // 1. Verify (docs/ARCHITECTURE.md §3); a refusal may still be the caller's retry of a row in flight (refuse.ts).
    ctx.payment.verify(),
    TE.chainW((verdict) => {
      if (verdict._tag === 'Invalid') return refuseWithJournalContext(ctx, verdict.failure)
      const refused = sendingRefusal(ctx, verdict.payerHasCode)
      if (refused !== undefined) return refuseSending(ctx, refused)
      return pipe(
        // 2. Reserve the amount (rule 9 again, reserve.ts).
        reserve(ctx, verdict),
        O.match(
          () => refuseUnreserved(ctx, verdict),
          (reservation) => claimAndSubmit(ctx, verdict.item, reservation),
        ),
      )
    }),
  )

/**
 * A payment its batch did not run, sent again alone: unless its payer may no longer be sent (suspended, budget spent).
 */
const sendAlone = (ctx: SettleContext, alone: Extract<Turn, { _tag: 'Alone' }>): Step<Turn> => {
  const { item, deadline, reservation } = alone
  const refused = sendingRefusal(ctx, item.payerHasCode === true)
  if (refused !== undefined) return T.of(release(ctx, reservation, E.right(answer(ctx.answer.refused(refused)))))
  return claimAndSubmit(ctx, item, reservation, deadline)
}

/** 3. claim, 4. submit or join a batch, 5. await the receipt, 6. record it, 7. release. */
const claimAndSubmit = (
  ctx: SettleContext,
  item: SubmissionItem,
  reservation: Reservation,
  deadline?: number,
): Step<Turn> =>
  pipe(
    // 3. Claim the row: one atomic insert per authorization (§5.2), or the row already there.
    ctx.deps.journal.claim(newSettlement(ctx, item.signature)),
    TE.chainW((claimed) =>
      claimed._tag === 'Conflict'
        ? // Our retry awaits the row's outcome; any other request is refused (await-row.ts).
          answerExisting(ctx, claimed.existing)
        : // 4–6. Sign, record the attempt, broadcast alone or in a batch, await the receipt, record it (submit.ts).
          submit(ctx, claimed.settlement, item, reservation, deadline),
    ),
    // 7. Release the reservation, or keep it while the answer is 202 (or for the next turn, alone) (reserve.ts).
    T.map((result) => release(ctx, reservation, result)),
  )

/** The depth of a success's block, when the head is followed. */
const withConfirmations = ({ deps }: SettleContext, outcome: SettleOutcome): SettleOutcome =>
  outcome._tag === 'Settled' && deps.finality !== undefined
    ? { ...outcome, confirmations: deps.finality.confirmationsOf(outcome.blockNumber) }
    : outcome

/** The request as every step sees it (settle-context.ts). */
const settleContext = (payment: Payment, options: SettleOptions, deps: SettleDeps): SettleContext => {
  const key = payment.key
  return {
    payment,
    options,
    deps,
    key,
    answer: settleAnswers(key.payer),
    waitsForFinal: options.waitFor === 'final',
    startedAt: deps.clock.now().getTime(),
  }
}
