import * as E from 'fp-ts/lib/Either.js'
import {
  computeUnitLimitOf,
  computeUnitPriceOf,
  transferCheckedOf,
  type TransferChecked,
} from '../model/svm-instruction-data.js'
import type { SvmFailure } from '../model/svm-failures.js'
import {
  COMPUTE_BUDGET_PROGRAM,
  LIGHTHOUSE_PROGRAM,
  MEMO_PROGRAM,
  TOKEN_PROGRAMS,
  type SvmInstruction,
  type SvmTransaction,
} from '../model/svm-transaction.js'

/** @x402/svm 2.27's default cap on the compute unit price: 5 lamports a unit. */
export const MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS = 5_000_000n
/**
 * Two signatures: our fee payer's and the payer's. The fee payer pays 5,000 lamports for each signature, and an `exact`
 * payment needs no third.
 */
export const MAX_SIGNERS = 2

/** What the route requires of one `exact` SVM payment, as its rules read it. */
export interface SvmPaymentTerms {
  /** `extra.feePayer`: one of `feePayers`. */
  readonly feePayer: string | undefined
  /** This route's fee payer keys. */
  readonly feePayers: ReadonlySet<string>
  readonly asset: string
  readonly amount: bigint
  /** payTo's associated token account for the asset, under each token program (the adapter derives them). */
  readonly payToAccountOf: (tokenProgram: string) => string
  /** `extra.memo`, when the resource server asks for one. */
  readonly memo?: string
  readonly maxComputeUnits?: number
  readonly maxComputeUnitPrice?: bigint
  readonly maxSigners?: number
}

type Checked<A> = E.Either<SvmFailure, A>
const fail = (failure: SvmFailure): Checked<never> => E.left(failure)

/** Whose key pays: `extra.feePayer` must be ours and the transaction's fee payer, and no other account may be. */
const feePayerRules = (tx: SvmTransaction, terms: SvmPaymentTerms): Checked<string> => {
  const { feePayer, feePayers } = terms
  if (feePayer === undefined || feePayer === '') return fail({ _tag: 'SvmFeePayerMissing' })
  if (!feePayers.has(feePayer)) return fail({ _tag: 'SvmFeePayerNotOurs', feePayer })
  if (tx.feePayer !== feePayer) return fail({ _tag: 'SvmFeePayerMismatch', expected: feePayer, actual: tx.feePayer })
  if (tx.usesLookupTables) return fail({ _tag: 'SvmLookupTables' })
  return E.right(feePayer)
}

/** Every signer but the fee payer (whose signature we add) signed, and no more than two sign. */
const signatureRules = (tx: SvmTransaction, terms: SvmPaymentTerms): Checked<void> => {
  const max = terms.maxSigners ?? MAX_SIGNERS
  if (tx.signers.length > max) return fail({ _tag: 'SvmTooManySigners', signers: tx.signers.length, max })
  const unsigned = tx.signers.slice(1).find((signer) => !tx.validSignatures.has(signer))
  return unsigned === undefined ? E.right(undefined) : fail({ _tag: 'SvmSignatureInvalid', signer: unsigned })
}

/**
 * Stricter than 2.27 (which checks only the transfer's authority): none of our fee payer keys is any instruction's
 * program or account, so the payment cannot move, close or approve anything of ours.
 */
const isolationRule = (tx: SvmTransaction, feePayers: ReadonlySet<string>): Checked<void> => {
  const index = tx.instructions.findIndex(
    (ix) => feePayers.has(ix.programAddress) || ix.accounts.some((account) => feePayers.has(account)),
  )
  if (index === -1) return E.right(undefined)
  return fail({ _tag: 'SvmFeePayerInInstruction', index, program: tx.instructions[index]!.programAddress })
}

const computeBudgetRules = ([limit, price]: ReadonlyArray<SvmInstruction>, terms: SvmPaymentTerms): Checked<void> => {
  const units = limit?.programAddress === COMPUTE_BUDGET_PROGRAM ? computeUnitLimitOf(limit) : undefined
  if (units === undefined) return fail({ _tag: 'SvmComputeLimitInstruction' })
  if (terms.maxComputeUnits !== undefined && units > terms.maxComputeUnits)
    return fail({ _tag: 'SvmComputeLimitTooHigh', units, max: terms.maxComputeUnits })
  const microLamports = price?.programAddress === COMPUTE_BUDGET_PROGRAM ? computeUnitPriceOf(price) : undefined
  if (microLamports === undefined) return fail({ _tag: 'SvmComputePriceInstruction' })
  const max = terms.maxComputeUnitPrice ?? MAX_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS
  return microLamports > max ? fail({ _tag: 'SvmComputePriceTooHigh', microLamports, max }) : E.right(undefined)
}

/** The one transfer: the asset, to payTo's token account for it, exactly the amount required. */
const transferRules = (ix: SvmInstruction | undefined, terms: SvmPaymentTerms): Checked<TransferChecked> => {
  const transfer = ix !== undefined && TOKEN_PROGRAMS.has(ix.programAddress) ? transferCheckedOf(ix) : undefined
  if (ix === undefined || transfer === undefined) return fail({ _tag: 'SvmNoTransferInstruction' })
  if (transfer.mint !== terms.asset)
    return fail({ _tag: 'SvmMintMismatch', mint: transfer.mint, expected: terms.asset })
  const expected = terms.payToAccountOf(ix.programAddress)
  if (transfer.destination !== expected)
    return fail({ _tag: 'SvmRecipientMismatch', destination: transfer.destination, expected })
  if (transfer.amount !== terms.amount)
    return fail({ _tag: 'SvmAmountMismatch', amount: transfer.amount, expected: terms.amount })
  return E.right(transfer)
}

/** After the transfer: Memo or Lighthouse only; exactly one memo, equal to `extra.memo`, when it asks for one. */
const trailingRules = (instructions: ReadonlyArray<SvmInstruction>, memo: string | undefined): Checked<void> => {
  const unknown = instructions.findIndex(
    (ix) => ix.programAddress !== MEMO_PROGRAM && ix.programAddress !== LIGHTHOUSE_PROGRAM,
  )
  if (unknown !== -1)
    return fail({ _tag: 'SvmUnknownInstruction', index: unknown + 3, program: instructions[unknown]!.programAddress })
  if (memo === undefined) return E.right(undefined)
  const memos = instructions.filter((ix) => ix.programAddress === MEMO_PROGRAM)
  if (memos.length !== 1) return fail({ _tag: 'SvmMemoCount', count: memos.length })
  return new TextDecoder().decode(memos[0]!.data) === memo ? E.right(undefined) : fail({ _tag: 'SvmMemoMismatch' })
}

/**
 * The `exact` SVM payment rules that need no chain, in @x402/svm 2.27's order, first failure wins: the fee payer, the
 * signatures, 3 to 7 instructions (compute unit limit, compute unit price, one `TransferChecked`, then Memo or
 * Lighthouse), our keys in none of them. Answers the transfer, whose authority is the payer.
 */
export const svmPaymentRules = (tx: SvmTransaction, terms: SvmPaymentTerms): Checked<TransferChecked> => {
  const { instructions } = tx
  const layout = (): Checked<TransferChecked> => {
    if (instructions.length < 3 || instructions.length > 7)
      return fail({ _tag: 'SvmInstructionCount', count: instructions.length })
    const budget = computeBudgetRules(instructions, terms)
    if (E.isLeft(budget)) return budget
    const transfer = transferRules(instructions[2], terms)
    if (E.isLeft(transfer)) return transfer
    const trailing = trailingRules(instructions.slice(3), terms.memo)
    return E.isLeft(trailing) ? trailing : transfer
  }
  const payer = feePayerRules(tx, terms)
  if (E.isLeft(payer)) return payer
  const signed = signatureRules(tx, terms)
  if (E.isLeft(signed)) return signed
  const isolated = isolationRule(tx, terms.feePayers)
  return E.isLeft(isolated) ? isolated : layout()
}
