import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, SettleRefusal, VerifyFailure } from '../model/failures.js'
import type { Address, Hex, PaymentRequest } from '../model/payment.js'
import type { Settlement, SettlementKey } from '../ports/settlement-journal.js'
import type { SettleDeps, SettleOptions, SettleOutcome } from './settle-payment.js'

export type SettledOutcome = Extract<SettleOutcome, { readonly _tag: 'Settled' }>

/** One step of a settle; infrastructure failures are answered (503) only while nothing has been broadcast. */
export type Step<A> = TE.TaskEither<InfrastructureFailure, A>

/** One settle request as its steps see it, built once by `settlePayment`. */
export interface SettleContext {
  readonly request: PaymentRequest
  readonly options: SettleOptions
  readonly deps: SettleDeps
  /** The authorization's row in the journal: one per key (docs/ARCHITECTURE.md §5). */
  readonly key: SettlementKey
  readonly answer: SettleAnswers
}

export const settleContext = (request: PaymentRequest, options: SettleOptions, deps: SettleDeps): SettleContext => {
  const { from: payer, nonce } = request.payload.authorization
  return {
    request,
    options,
    deps,
    key: { network: deps.policy.network, asset: deps.policy.asset.address, payer, nonce },
    answer: settleAnswers(payer),
  }
}

/** The outcomes a settle answers, each naming the payer. */
const settleAnswers = (payer: Address) => {
  const refused = (refusal: VerifyFailure | SettleRefusal): SettleOutcome => ({ _tag: 'Refused', payer, refusal })
  return {
    settled: (txHash: Hex, blockNumber: bigint, replayed: boolean): SettledOutcome => ({ _tag: 'Settled', payer, txHash, blockNumber, replayed }),
    refused,
    pending: (txHash: Hex): SettleOutcome => ({ _tag: 'Pending', payer, txHash }),
    // Spread rather than `txHash: row.txHash`: a refusal without a transaction has no `txHash` key at all.
    alreadySettling: (row: Settlement): SettleOutcome =>
      refused({ _tag: 'AlreadySettling', state: row.state, ...(row.txHash ? { txHash: row.txHash } : {}) }),
    idempotencyConflict: (): SettleOutcome => ({ _tag: 'IdempotencyConflict', payer }),
  }
}

export type SettleAnswers = ReturnType<typeof settleAnswers>
