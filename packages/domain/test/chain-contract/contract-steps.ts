import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { PreparedTransfer, Replacement, SendOutcome, TransferReceipt } from '@x402-facilitator/domain'

/** The right of a TaskEither; fails the case with the left otherwise. */
export const rightOf = async <L, A>(task: TE.TaskEither<L, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected Right, got Left ${JSON.stringify(result.left)}`)
  return result.right
}

export const minedReceipt = (outcome: SendOutcome): TransferReceipt => {
  expect(outcome._tag).to.equal('Mined')
  if (outcome._tag !== 'Mined') throw new Error('not mined within the wait')
  return outcome.receipt
}

export const prepared = (replacement: Replacement): PreparedTransfer => {
  if (replacement._tag !== 'Prepared') throw new Error('at the fee cap')
  return replacement.transfer
}

/** What both tokens under test (DemoUsd, Circle's USDC) revert with for a transfer above the payer's balance. */
export const EXCEEDS_BALANCE = /transfer amount exceeds balance$/
