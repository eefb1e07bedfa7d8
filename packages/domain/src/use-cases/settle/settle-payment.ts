import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as RTE from 'fp-ts/lib/ReaderTaskEither.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { chainUnavailable, type InfrastructureFailure } from '../../model/failures.js'
import type { Hex, PaymentRequest } from '../../model/payment.js'
import type { Reservation } from '../../ports/payer-exposure.js'
import type { PaymentTrial } from '../../ports/token-reader.js'
import type { BatchItem } from '../../ports/transfer-submitter.js'
import { verifyPayment } from '../verify-payment.js'
import { waitsForFinal, withConfirmations } from './answer-success.js'
import { answerExisting, awaitOutcome, isWithinIdempotencyWindow } from './await-row.js'
import { claim } from './claim.js'
import { refuseSending, refuseWithJournalContext, sendingRefusal } from './refuse.js'
import { release, refuseUnreserved, reserve } from './reserve.js'
import { answer, settleContext, type SettleContext, type SettleDeps, type SettleOptions, type Step, type Turn } from './settle-context.js'
import type { SettleOutcome } from './settle-outcome.js'
import { submit } from './submit.js'

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
 * verify → reserve → claim → submit or join a batch → await the receipt → record it → release, in turns (`inTurns`).
 * Infrastructure failures are answered (503) only while nothing has been broadcast. The answer that leaves says how
 * deep its block is (`confirmations`).
 */
export const settlePayment =
  (request: PaymentRequest, options: SettleOptions): RTE.ReaderTaskEither<SettleDeps, InfrastructureFailure, SettleOutcome> =>
  (deps) => {
    const ctx = settleContext(request, options, deps)
    return pipe(
      retryUnderKey(ctx),
      TE.chain((first) => inTurns(ctx, first)),
      TE.map((outcome) => (waitsForFinal(ctx) ? outcome : withConfirmations(ctx, outcome))),
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
        row.requestHash !== requestHash ? TE.right(answer(ctx.answer.idempotencyConflict())) : awaitOutcome(ctx, row, 'keyed'),
      ),
    ),
  )
}

/** Turns until an answer, at most `MAX_SETTLE_TURNS`. */
const inTurns =
  (ctx: SettleContext, first: Turn): Step<SettleOutcome> =>
  async () => {
    let next = first
    for (let turn = 1; next._tag !== 'Answer'; turn++) {
      if (turn > MAX_SETTLE_TURNS) {
        if (next._tag === 'Alone') next.reservation.release()
        return E.left(chainUnavailable(`the payment's row was released ${MAX_SETTLE_TURNS} times while settling it; try again`))
      }
      const result = await (next._tag === 'Anew' ? settleAnew(ctx) : sendAlone(ctx, next))()
      if (E.isLeft(result)) return result
      next = result.right
    }
    return E.right(next.outcome)
  }

/** One turn from the top. A refused payment may still be the caller's retry of a row in flight (refuse.ts). */
const settleAnew = (ctx: SettleContext): Step<Turn> =>
  pipe(
    verifyPayment(ctx.request)(ctx.deps),
    TE.chainW((verdict) => {
      if (verdict._tag === 'Invalid') return refuseWithJournalContext(ctx, verdict.failure)
      const refused = sendingRefusal(ctx, verdict.payerHasCode)
      if (refused !== undefined) return refuseSending(ctx, refused)
      return pipe(
        reserve(ctx, verdict.payerState),
        O.match(
          () => refuseUnreserved(ctx, verdict.payerState),
          (reservation) => claimAndSubmit(ctx, itemOf(ctx, verdict), reservation),
        ),
      )
    }),
  )

/** A payment its batch did not run, sent again alone: unless its payer may no longer be sent (suspended, budget spent). */
const sendAlone = (ctx: SettleContext, { item, deadline, reservation }: Extract<Turn, { _tag: 'Alone' }>): Step<Turn> => {
  const refused = sendingRefusal(ctx, item.payerHasCode === true)
  if (refused !== undefined) return T.of(release(ctx, reservation)(E.right(answer(ctx.answer.refused(refused)))))
  return claimAndSubmit(ctx, item, reservation, deadline)
}

/**
 * Claim the row, or meet the one already there (await-row.ts: our retry awaits it, another request is refused); submit
 * alone or in a batch, await the receipt and record it (submit.ts, record.ts); release what was reserved (reserve.ts).
 */
const claimAndSubmit = (ctx: SettleContext, item: BatchItem, reservation: Reservation, deadline?: number): Step<Turn> =>
  pipe(
    claim(ctx, item.signature),
    TE.chainW((claimed) =>
      claimed._tag === 'Conflict'
        ? answerExisting(ctx, claimed.existing)
        : submit(ctx, claimed.settlement, item, reservation, deadline),
    ),
    T.map(release(ctx, reservation)),
  )

/** What the settle sends: the bytes verify judged and tried, and what the trial used. */
const itemOf = (ctx: SettleContext, verdict: { readonly payerState: PaymentTrial; readonly signature: Hex; readonly payerHasCode: boolean }): BatchItem => {
  const { transfer } = verdict.payerState
  const item = { authorization: ctx.request.payload.authorization, signature: verdict.signature, payerHasCode: verdict.payerHasCode }
  if (transfer._tag !== 'WouldSucceed') return item
  return { ...item, executionGas: transfer.gasUsed, ...(transfer.gasCap === undefined ? {} : { trialGasCap: transfer.gasCap }) }
}
