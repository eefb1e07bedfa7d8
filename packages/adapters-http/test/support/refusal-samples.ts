import type { SettleRefusal, VerifyFailure } from '@x402-facilitator/domain'
import { permit2Failures } from './permit2-refusal-samples.js'
import { svmFailures } from './svm-refusal-samples.js'

const PAYER = `0x${'12'.repeat(20)}` as const
const OTHER = `0x${'34'.repeat(20)}` as const
const TX_HASH = `0x${'cd'.repeat(32)}` as const
const UNTIL = new Date('2030-01-01T00:00:00Z')

/** One refusal of each tag, with the reason code its answer must carry: a new tag fails to compile here. */
type Samples<Union extends { readonly _tag: string }> = {
  readonly [Tag in Union['_tag']]: { readonly refusal: Extract<Union, { readonly _tag: Tag }>; readonly code: string }
}

export const verifyFailures: Samples<VerifyFailure> = {
  ...permit2Failures,
  ...svmFailures,
  UnsupportedVersion: { refusal: { _tag: 'UnsupportedVersion', version: 1 }, code: 'invalid_x402_version' },
  UnsupportedScheme: { refusal: { _tag: 'UnsupportedScheme', scheme: 'upto' }, code: 'unsupported_scheme' },
  UnsupportedTransferMethod: {
    refusal: { _tag: 'UnsupportedTransferMethod', method: 'permit2', allowed: ['eip3009'] },
    code: 'unsupported_asset_transfer_method',
  },
  WrongNetwork: {
    refusal: { _tag: 'WrongNetwork', network: 'base', expected: 'eip155:31337' },
    code: 'invalid_network',
  },
  WrongAsset: { refusal: { _tag: 'WrongAsset', asset: OTHER, expected: PAYER }, code: 'invalid_payment_requirements' },
  ZeroRecipient: { refusal: { _tag: 'ZeroRecipient' }, code: 'invalid_payment_requirements' },
  RecipientMismatch: {
    refusal: { _tag: 'RecipientMismatch', expected: PAYER, actual: OTHER },
    code: 'invalid_exact_evm_payload_recipient_mismatch',
  },
  ZeroValue: { refusal: { _tag: 'ZeroValue' }, code: 'invalid_exact_evm_payload_authorization_value' },
  AmountBelowMinimum: {
    refusal: { _tag: 'AmountBelowMinimum', amount: 1n, minimum: 2n },
    code: 'invalid_payment_requirements',
  },
  ValueBelowAmount: {
    refusal: { _tag: 'ValueBelowAmount', value: 1n, amount: 2n },
    code: 'invalid_exact_evm_payload_authorization_value',
  },
  NotYetValid: {
    refusal: { _tag: 'NotYetValid', validAfter: 10n, now: 5n },
    code: 'invalid_exact_evm_payload_authorization_valid_after',
  },
  Expired: {
    refusal: { _tag: 'Expired', validBefore: 10n, now: 9n, margin: 6n },
    code: 'invalid_exact_evm_payload_authorization_valid_before',
  },
  AddressDenied: {
    refusal: { _tag: 'AddressDenied', side: 'payee', address: OTHER },
    code: 'address_denied',
  },
  InvalidSignature: {
    refusal: { _tag: 'InvalidSignature', detail: 'recovers another address' },
    code: 'invalid_exact_evm_payload_signature',
  },
  Erc6492FactoryNotAllowed: {
    refusal: { _tag: 'Erc6492FactoryNotAllowed', factory: OTHER },
    code: 'erc6492_factory_not_allowed',
  },
  AuthorizationUsed: { refusal: { _tag: 'AuthorizationUsed' }, code: 'authorization_already_used' },
  InsufficientFunds: {
    refusal: { _tag: 'InsufficientFunds', available: 1n, required: 2n },
    code: 'insufficient_funds',
  },
  TokenPaused: { refusal: { _tag: 'TokenPaused' }, code: 'token_paused' },
  PayerBlacklisted: { refusal: { _tag: 'PayerBlacklisted', payer: PAYER }, code: 'payer_blacklisted' },
  PayeeBlacklisted: { refusal: { _tag: 'PayeeBlacklisted', payee: OTHER }, code: 'payee_blacklisted' },
  TransferWouldRevert: { refusal: { _tag: 'TransferWouldRevert' }, code: 'invalid_transaction_state' },
}

export const settleRefusals: Samples<SettleRefusal> = {
  AlreadySettling: {
    refusal: { _tag: 'AlreadySettling', state: 'confirmed', txHash: TX_HASH },
    code: 'authorization_already_used',
  },
  TransactionReverted: { refusal: { _tag: 'TransactionReverted', txHash: TX_HASH }, code: 'invalid_transaction_state' },
  PayerSuspended: { refusal: { _tag: 'PayerSuspended', payer: PAYER, until: UNTIL }, code: 'payer_suspended' },
  ContractPayerGasBudgetSpent: {
    refusal: { _tag: 'ContractPayerGasBudgetSpent', payer: PAYER, until: UNTIL },
    code: 'contract_payer_gas_budget_spent',
  },
  NewPayerGasBudgetSpent: {
    refusal: { _tag: 'NewPayerGasBudgetSpent', payer: PAYER, until: UNTIL },
    code: 'new_payer_gas_budget_spent',
  },
}
