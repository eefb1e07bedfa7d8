import type { SvmFailure } from '@x402-facilitator/domain'

const FEE_PAYER = 'FeePayer1111111111111111111111111111111111'
const MINT = 'So11111111111111111111111111111111111111112'
const OTHER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'
const P = 'invalid_exact_svm_payload'

type Samples = {
  readonly [Tag in SvmFailure['_tag']]: {
    readonly refusal: Extract<SvmFailure, { readonly _tag: Tag }>
    readonly code: string
  }
}

/** Each SVM rule's refusal with @x402/svm 2.27's reason code. */
export const svmFailures: Samples = {
  SvmFeePayerMissing: { refusal: { _tag: 'SvmFeePayerMissing' }, code: `${P}_missing_fee_payer` },
  SvmFeePayerNotOurs: {
    refusal: { _tag: 'SvmFeePayerNotOurs', feePayer: OTHER },
    code: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  },
  SvmFeePayerMismatch: {
    refusal: { _tag: 'SvmFeePayerMismatch', expected: FEE_PAYER, actual: OTHER },
    code: 'invalid_exact_svm_fee_payer_mismatch',
  },
  SvmLookupTables: { refusal: { _tag: 'SvmLookupTables' }, code: `${P}_transaction_could_not_be_decoded` },
  SvmTooManySigners: { refusal: { _tag: 'SvmTooManySigners', signers: 3, max: 2 }, code: `${P}_excessive_signers` },
  SvmSignatureInvalid: { refusal: { _tag: 'SvmSignatureInvalid', signer: OTHER }, code: `${P}_signature_invalid` },
  SvmInstructionCount: {
    refusal: { _tag: 'SvmInstructionCount', count: 2 },
    code: `${P}_transaction_instructions_length`,
  },
  SvmComputeLimitInstruction: {
    refusal: { _tag: 'SvmComputeLimitInstruction' },
    code: `${P}_transaction_instructions_compute_limit_instruction`,
  },
  SvmComputeLimitTooHigh: {
    refusal: { _tag: 'SvmComputeLimitTooHigh', units: 2_000_000, max: 200_000 },
    code: `${P}_transaction_instructions_compute_limit_instruction_too_high`,
  },
  SvmComputePriceInstruction: {
    refusal: { _tag: 'SvmComputePriceInstruction' },
    code: `${P}_transaction_instructions_compute_price_instruction`,
  },
  SvmComputePriceTooHigh: {
    refusal: { _tag: 'SvmComputePriceTooHigh', microLamports: 6_000_000n, max: 5_000_000n },
    code: `${P}_transaction_instructions_compute_price_instruction_too_high`,
  },
  SvmNoTransferInstruction: { refusal: { _tag: 'SvmNoTransferInstruction' }, code: `${P}_no_transfer_instruction` },
  SvmFeePayerInInstruction: {
    refusal: { _tag: 'SvmFeePayerInInstruction', index: 2, program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
    code: `${P}_transaction_fee_payer_transferring_funds`,
  },
  SvmMintMismatch: { refusal: { _tag: 'SvmMintMismatch', mint: OTHER, expected: MINT }, code: `${P}_mint_mismatch` },
  SvmRecipientMismatch: {
    refusal: { _tag: 'SvmRecipientMismatch', destination: OTHER, expected: MINT },
    code: `${P}_recipient_mismatch`,
  },
  SvmAmountMismatch: {
    refusal: { _tag: 'SvmAmountMismatch', amount: 1n, expected: 1_000_000n },
    code: `${P}_amount_mismatch`,
  },
  SvmUnknownInstruction: {
    refusal: { _tag: 'SvmUnknownInstruction', index: 3, program: OTHER },
    code: `${P}_unknown_fourth_instruction`,
  },
  SvmMemoCount: { refusal: { _tag: 'SvmMemoCount', count: 0 }, code: `${P}_memo_count` },
  SvmMemoMismatch: { refusal: { _tag: 'SvmMemoMismatch' }, code: `${P}_memo_mismatch` },
  SvmTransactionUndecodable: {
    refusal: { _tag: 'SvmTransactionUndecodable', detail: 'is not base64' },
    code: `${P}_transaction_could_not_be_decoded`,
  },
  SvmBlockhashExpired: { refusal: { _tag: 'SvmBlockhashExpired' }, code: 'invalid_exact_svm_transaction_expired' },
  SvmSimulationFailed: {
    refusal: { _tag: 'SvmSimulationFailed', reason: 'InstructionError(2, Custom(1))' },
    code: 'invalid_exact_svm_transaction_simulation_failed',
  },
}
