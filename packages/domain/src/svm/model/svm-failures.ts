import type { Explained } from '../../model/reason-codes.js'

/**
 * The `exact` SVM rules a payment did not pass: answers (HTTP 200) like every `VerifyFailure`, under @x402/svm 2.27's
 * reason codes. Stricter than 2.27 where our fee payer's money is at stake: it appears in no instruction at all.
 */
export type SvmFailure =
  | { readonly _tag: 'SvmFeePayerMissing' }
  | { readonly _tag: 'SvmFeePayerNotOurs'; readonly feePayer: string }
  | { readonly _tag: 'SvmFeePayerMismatch'; readonly expected: string; readonly actual: string }
  | { readonly _tag: 'SvmLookupTables' }
  | { readonly _tag: 'SvmTooManySigners'; readonly signers: number; readonly max: number }
  | { readonly _tag: 'SvmSignatureInvalid'; readonly signer: string }
  | { readonly _tag: 'SvmInstructionCount'; readonly count: number }
  | { readonly _tag: 'SvmComputeLimitInstruction' }
  | { readonly _tag: 'SvmComputeLimitTooHigh'; readonly units: number; readonly max: number }
  | { readonly _tag: 'SvmComputePriceInstruction' }
  | { readonly _tag: 'SvmComputePriceTooHigh'; readonly microLamports: bigint; readonly max: bigint }
  | { readonly _tag: 'SvmNoTransferInstruction' }
  | { readonly _tag: 'SvmFeePayerInInstruction'; readonly index: number; readonly program: string }
  | { readonly _tag: 'SvmMintMismatch'; readonly mint: string; readonly expected: string }
  | { readonly _tag: 'SvmRecipientMismatch'; readonly destination: string; readonly expected: string }
  | { readonly _tag: 'SvmAmountMismatch'; readonly amount: bigint; readonly expected: bigint }
  | { readonly _tag: 'SvmUnknownInstruction'; readonly index: number; readonly program: string }
  | { readonly _tag: 'SvmMemoCount'; readonly count: number }
  | { readonly _tag: 'SvmMemoMismatch' }
  | { readonly _tag: 'SvmTransactionUndecodable'; readonly detail: string }
  /** Its blockhash is too old for any block to take it (about 150 slots, a minute): the payer must sign anew. */
  | { readonly _tag: 'SvmBlockhashExpired' }
  /** The chain ran it without our signature and it failed (the payer's funds, a missing token account, …). */
  | { readonly _tag: 'SvmSimulationFailed'; readonly reason: string }

export type SvmReasonCode = `invalid_exact_svm_${string}`

declare module '../../model/failures.js' {
  interface MechanismFailures {
    readonly svm: SvmFailure
  }
}

declare module '../../model/reason-codes.js' {
  interface MechanismReasonCodes {
    readonly svm: SvmReasonCode
  }
}

/** Every SVM refusal's tag starts `Svm` (and no other family's does). */
export const isSvmFailure = (failure: { readonly _tag: string }): failure is SvmFailure =>
  failure._tag.startsWith('Svm')

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh']
const ordinal = (index: number): string => ORDINALS[index] ?? `#${index + 1}`

const explained = (reasonCode: SvmReasonCode, message: string): Explained => ({ reasonCode, message })
/** A code of the payload's rules, and of its instructions'. */
const payload = (rule: string, message: string) => explained(`invalid_exact_svm_payload_${rule}`, message)
const instructions = (rule: string, message: string) => payload(`transaction_instructions_${rule}`, message)

/** Wire code and message of an SVM rule's failure (@x402/svm 2.27's codes). */
export const explainSvmFailure = (failure: SvmFailure): Explained => {
  switch (failure._tag) {
    case 'SvmFeePayerMissing':
      return payload('missing_fee_payer', 'the requirements name no extra.feePayer')
    case 'SvmFeePayerNotOurs':
      return explained(
        'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
        `extra.feePayer ${failure.feePayer} is not a fee payer of this facilitator`,
      )
    case 'SvmFeePayerMismatch':
      return explained(
        'invalid_exact_svm_fee_payer_mismatch',
        `the transaction's fee payer is ${failure.actual}, not extra.feePayer ${failure.expected}`,
      )
    case 'SvmLookupTables':
      return payload(
        'transaction_could_not_be_decoded',
        'the transaction reaches accounts through address lookup tables: every account must be in its message',
      )
    case 'SvmTooManySigners':
      return payload(
        'excessive_signers',
        `the transaction needs ${failure.signers} signatures; at most ${failure.max} (the fee payer pays for each)`,
      )
    case 'SvmSignatureInvalid':
      return payload('signature_invalid', `the signature of ${failure.signer} is missing or invalid`)
    case 'SvmInstructionCount':
      return payload(
        'transaction_instructions_length',
        `the transaction has ${failure.count} instructions; an exact payment has 3 to 7`,
      )
    case 'SvmComputeLimitInstruction':
      return instructions('compute_limit_instruction', 'the first instruction must set the compute unit limit')
    case 'SvmComputeLimitTooHigh':
      return instructions(
        'compute_limit_instruction_too_high',
        `compute unit limit ${failure.units} is above ${failure.max}`,
      )
    case 'SvmComputePriceInstruction':
      return instructions('compute_price_instruction', 'the second instruction must set the compute unit price')
    case 'SvmComputePriceTooHigh':
      return instructions(
        'compute_price_instruction_too_high',
        `compute unit price ${failure.microLamports} micro-lamports is above ${failure.max}`,
      )
    case 'SvmNoTransferInstruction':
      return payload(
        'no_transfer_instruction',
        'the third instruction must be one TransferChecked of SPL Token or Token-2022',
      )
    case 'SvmFeePayerInInstruction':
      return payload(
        'transaction_fee_payer_transferring_funds',
        `the fee payer appears in the ${ordinal(failure.index)} instruction (${failure.program}): it may not be used by the payment, only pay its fee`,
      )
    case 'SvmMintMismatch':
      return payload('mint_mismatch', `the transfer moves mint ${failure.mint}, not the asset ${failure.expected}`)
    case 'SvmRecipientMismatch':
      return payload(
        'recipient_mismatch',
        `the transfer pays ${failure.destination}, not payTo's token account ${failure.expected}`,
      )
    case 'SvmAmountMismatch':
      return payload(
        'amount_mismatch',
        `the transfer moves ${failure.amount}, not the amount required, ${failure.expected}`,
      )
    case 'SvmUnknownInstruction':
      return explained(
        `invalid_exact_svm_payload_unknown_${ORDINALS[failure.index] ?? 'optional'}_instruction`,
        `the ${ordinal(failure.index)} instruction calls ${failure.program}: only Memo or Lighthouse may follow the transfer`,
      )
    case 'SvmMemoCount':
      return payload('memo_count', `the transaction carries ${failure.count} memos; extra.memo asks for one`)
    case 'SvmMemoMismatch':
      return payload('memo_mismatch', 'the memo is not extra.memo')
    case 'SvmTransactionUndecodable':
      return payload('transaction_could_not_be_decoded', `payload.transaction ${failure.detail}`)
    case 'SvmBlockhashExpired':
      return explained(
        'invalid_exact_svm_transaction_expired',
        "the transaction's blockhash has expired: no block can take it; sign the payment again",
      )
    case 'SvmSimulationFailed':
      return explained(
        'invalid_exact_svm_transaction_simulation_failed',
        `the chain would refuse the transaction: ${failure.reason}`,
      )
  }
}
