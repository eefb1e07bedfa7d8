import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Payment } from '../../ports/payment-mechanism.js'
import { answerExisting } from './await-row.js'
import { refuseWithJournalContext } from './refuse.js'
import { newSettlement, type SettleContext, type Step } from './settle-context.js'
import { answer, type Turn } from './settle-outcome.js'

/**
 * docs/ARCHITECTURE.md §5: a settle that moves nothing (an `upto` settle of 0) runs every verify rule on the payment as
 * signed (`asSigned`, the payment's `waiver`), then claims the row in its end state `waived` and
 * answers success without a transaction. Nothing is sent; the nonce stays open on chain until its deadline, and the
 * row keeps any later settle of it from charging (await-row.ts answers it).
 */
export const waive = (ctx: SettleContext, asSigned: Payment): Step<Turn> =>
  pipe(
    asSigned.verify(),
    TE.chainW((verdict) => {
      if (verdict._tag === 'Invalid') return refuseWithJournalContext(ctx, verdict.failure)
      return pipe(
        ctx.deps.journal.claim({ ...newSettlement(ctx, verdict.signature), waived: true }),
        TE.chainW((claimed) =>
          claimed._tag === 'Conflict'
            ? answerExisting(ctx, claimed.existing)
            : TE.right(answer(ctx.answer.waived(false))),
        ),
      )
    }),
  )
