import type { Address } from '../model/payment.js'
import type { BatchItemOutcome, TransferReceipt } from '../ports/transaction-receipt.js'
import type { PenaltyBox } from './penalty-box.js'

/**
 * One payment's part in a mined transaction: its payer, whether the payer has code, its item index in a settler batch.
 */
export interface PaymentInReceipt {
  readonly payer: Address
  readonly payerHasCode: boolean
  /** Its item's index when the transaction is a settler batch; absent: a lone transfer. */
  readonly batchIndex?: number
}

/**
 * The one place a receipt's penalties are judged (docs/ARCHITECTURE.md §5.7), whoever records it: the live settle, a
 * receipt that came after its settle answered 202, recovery. Once per payment and transaction (the penalty box
 * remembers), so two of them seeing the same receipt count it once. A failed batch item that burnt (nearly) its whole
 * bound: its payer is not batched for a while, and a payer with code is not sent at all for a while; any failed item of
 * a payer with code: its gas is lost to payers with code. A lone transaction of a payer with code that reverted: the
 * payer is not sent for a while and its gas is lost to lone sends. A lone transaction of a payer without code that
 * reverted for the payer's balance or allowance (moved away, or replaced by a permit, after its trial): the payer is
 * not sent for a while either, and its gas is lost to such reverts. A payment that succeeded: its payer has paid. What
 * the claim (`claim`) reserved while in flight ends here.
 */
export const judgeReceipt = (
  penalties: PenaltyBox | undefined,
  itemGasLimit: bigint,
  payment: PaymentInReceipt,
  receipt: TransferReceipt,
  claim?: string,
): void => {
  if (penalties === undefined) return
  if (claim !== undefined) penalties.settleReservation(claim)
  const { payer, payerHasCode, batchIndex } = payment
  if (!penalties.firstJudgement(`${receipt.txHash.toLowerCase()}:${batchIndex ?? 'alone'}`)) return
  if (batchIndex === undefined) {
    if (receipt.succeeded) penalties.paid(payer)
    else if (payerHasCode) {
      penalties.refuseSending(payer)
      penalties.lostGas(receipt.gasUsed, 'alone')
    } else if (revertedForFunds(receipt.revertReason)) {
      penalties.refuseSending(payer)
      penalties.lostGas(receipt.gasUsed, 'funds')
    }
    return
  }
  const outcome = receipt.items?.find((i) => i.index === batchIndex)
  if (outcome?.succeeded === true && receipt.succeeded) penalties.paid(payer)
  if (outcome === undefined || outcome.succeeded || outcome.notRun === true || outcome.gasUsed === undefined) return
  if (burntItsBound(outcome, itemGasLimit)) {
    if (payerHasCode) penalties.refuseSending(payer)
    else penalties.refuseBatching(payer)
  }
  if (payerHasCode) penalties.lostGas(outcome.gasUsed)
}

/** A claim's reservation id (penalty-box.ts `reserve`). */
export const reservationId = (claim: { readonly id: string; readonly generation: number }): string =>
  `${claim.id}:${claim.generation}`

/**
 * A failed item whose call took ≥ 31/32 of the item bound ran out of gas: a wallet that burns all it is given leaves
 * the token the 64th of what it had (EIP-150), which the token hands back unused when it reverts — so "63/64" misses
 * it. Measured on Circle's USDC: a GasTrapWallet's item reported 292 775 of a 300 000 bound (97.6 %); an honest failure
 * (a bad signature, an expired authorization) uses a fraction of it.
 */
export const burntItsBound = (outcome: BatchItemOutcome, itemGasLimit: bigint): boolean =>
  !outcome.succeeded &&
  outcome.notRun !== true &&
  outcome.gasUsed !== undefined &&
  outcome.gasUsed * 32n >= itemGasLimit * 31n

/**
 * Whether a revert names the payer's funds: its balance, or its allowance (Permit2's `transferFrom`, solmate's
 * `TRANSFER_FROM_FAILED`). Not a used or cancelled authorization: a copy of ours mined first is no fault of the payer's.
 */
export const revertedForFunds = (reason: string | undefined): boolean =>
  reason !== undefined &&
  /exceeds (balance|allowance)|insufficient (balance|allowance)|TRANSFER_FROM_FAILED/i.test(reason)
