import type * as T from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable, VerifyFailure } from '../model/failures.js'
import type { Address } from '../model/payment.js'
import type { PaymentKind } from './payer-exposure.js'
import type { PaymentEnds } from './payment-ends.js'
import type { NewSettlement, Settlement, SettlementKey } from './settlement-row.js'
import type { SubmissionItem } from './submissions.js'

/** What a payment takes out of its payer's funds while in flight here. */
export interface PaymentExposure {
  readonly payer: Address
  readonly value: bigint
  readonly kind: PaymentKind
}

/** A payment every verify rule accepted, as a settle goes on with it. */
export interface ValidPayment {
  readonly _tag: 'Valid'
  readonly payer: Address
  /** What the payer holds now, as verify read it: what a settle reserves the amount against (rule 9). */
  readonly funds: bigint
  /** The bytes the settle sends, the ones verify tried: its claimed row stores them. */
  readonly signature: string
  /** The payer's address holds code, or its contract accepted the signature (a wallet not deployed yet). */
  readonly payerHasCode: boolean
  /** What a settle of it submits (`SubmissionQueue`). */
  readonly item: SubmissionItem
  /**
   * Why a settle could not reserve it, asked then: its payer's funds taken meanwhile by payments in flight here, or
   * what else of the payer's in flight stands in its way.
   */
  readonly unreserved: () => VerifyFailure
}

export type VerifyOutcome =
  ValidPayment | { readonly _tag: 'Invalid'; readonly payer: Address; readonly failure: VerifyFailure }

/**
 * What a claimed row records of the payment itself, as its mechanism reads it: everything of the row but its key and
 * the request's (who asked, under which key, what it required).
 */
export type ClaimTerms = Omit<
  NewSettlement,
  keyof SettlementKey | 'requirements' | 'owner' | 'idempotencyKey' | 'requestHash' | 'caller' | 'waived'
>

/**
 * One payment request as its chain family's mechanism reads it (`PaymentReader`): what the settle and verify use cases
 * ask of it, and nothing of its fields.
 */
export interface Payment {
  /** The payment's identity: its row's key, one row per payment (docs/ARCHITECTURE.md §5). */
  readonly key: SettlementKey
  /** How long its resource server lets a settle take (its requirements' `maxTimeoutSeconds`). */
  readonly maxTimeoutSeconds: number
  /** What the claimed row stores to send the payment again; `signature`: the bytes verify chose to send. */
  readonly claimTerms: (signature: string) => ClaimTerms
  /** What the payment takes out of its payer's funds while in flight here (rule 9), and how it spends them. */
  readonly exposure: () => PaymentExposure
  /**
   * A settle that moves nothing and is answered success without a transaction (an `upto` settle of 0): the payment as
   * signed, which verify judges instead; undefined for any other.
   */
  readonly waiver: () => Payment | undefined
  /**
   * A released row that is not free to claim again while an earlier attempt of it may still be mined (a Permit2
   * payment's, held by its journal): a settle of this payment is answered 202 naming that attempt.
   */
  readonly heldWhileReleased: (row: Settlement) => boolean
  /** Every verify rule in order, first failure wins (docs/ARCHITECTURE.md §3). */
  readonly verify: () => TE.TaskEither<ChainUnavailable, VerifyOutcome>
}

/** How a chain family reads its own requests (`P`: what its codecs decode) as payments. */
export interface PaymentReader<P> {
  readonly paymentOf: (request: P) => Payment
}

/**
 * One chain family's way of paying (docs/ARCHITECTURE.md §1, the payment mechanism): what the settle use case asks of
 * it beyond one payment (`Payment`), and nothing of how. The EVM mechanism (evm/evm-mechanism.ts) answers from its rules
 * and its chain's ports.
 */
export interface PaymentMechanism {
  /** Who else used or cancelled a row's payment on the chain (a copy mined first, the payer's cancellation). */
  readonly ends: PaymentEnds
  /**
   * A payment whose item failed in its batch, tried again alone: whether it would succeed (and its payment is unused),
   * and whether its payer has code (the chain's word too: a payer may have gained code since verify).
   */
  readonly retrial: (item: SubmissionItem) => T.Task<{ readonly wouldSucceed: boolean; readonly payerHasCode: boolean }>
  /**
   * A released row the chain says is used, judged now as recovery's next pass would (docs/ARCHITECTURE.md §5.5): its
   * own attempt may have paid it after all, and the row is then confirmed.
   */
  readonly judgeReleased: (row: Settlement) => T.Task<unknown>
}
