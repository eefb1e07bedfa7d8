import type { MechanismFailure, SettleRefusal, VerifyFailure } from './failures.js'
import type { Address, TokenInfo } from './payment.js'
import { formatTokenAmount } from './token-amount.js'

/** Each payment mechanism's own wire codes, added by declaration merging (the EVM's: evm/model/permit2-reason-codes.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MechanismReasonCodes {}

/** Stable wire codes; x402 v2 names where one exists (docs/ARCHITECTURE.md §3). */
export type ReasonCode =
  | 'invalid_x402_version'
  | 'unsupported_scheme'
  | 'unsupported_asset_transfer_method'
  | 'invalid_network'
  | 'invalid_payment_requirements'
  | 'invalid_exact_evm_payload_recipient_mismatch'
  | 'invalid_exact_evm_payload_authorization_value'
  | 'invalid_exact_evm_payload_signature'
  | 'erc6492_factory_not_allowed'
  | 'address_denied'
  | 'authorization_already_used'
  | 'insufficient_funds'
  | 'token_paused'
  | 'payer_blacklisted'
  | 'payee_blacklisted'
  | 'invalid_transaction_state'
  | 'payer_suspended'
  | 'contract_payer_gas_budget_spent'
  | 'new_payer_gas_budget_spent'
  | MechanismReasonCodes[keyof MechanismReasonCodes]

export interface Explained {
  readonly reasonCode: ReasonCode
  readonly message: string
}

/** A payment mechanism's wording of its own refusals; `units` words an amount in the token. */
export type MechanismExplainer = (failure: MechanismFailure, units: (n: bigint) => string) => Explained

/**
 * The one map from a refusal to its wire code and human message; amounts are worded in `asset` (the token the request
 * named when it is served, else its network's first: a policy's own asset fits); a mechanism's own refusals, by its
 * explainer.
 */
/** A token the request's network serves, as a refusal of another token names it; `how`: how it may be paid. */
export interface NetworkToken {
  readonly address: Address
  readonly symbol: string
  readonly how?: string
}

export const explainRefusal = (
  failure: VerifyFailure | SettleRefusal,
  {
    asset,
    explainMechanism,
    networkTokens,
  }: {
    readonly asset: TokenInfo
    readonly explainMechanism: MechanismExplainer
    /** Every token of the request's network, when it is served: an unserved token's refusal lists them. */
    readonly networkTokens?: ReadonlyArray<NetworkToken>
  },
): Explained => {
  const { symbol, decimals } = asset
  const units = (n: bigint) => `${formatTokenAmount(n, decimals)} ${symbol}`
  switch (failure._tag) {
    case 'UnsupportedVersion':
      return {
        reasonCode: 'invalid_x402_version',
        message: `unsupported x402 version ${failure.version}: this facilitator speaks version 2`,
      }
    case 'UnsupportedScheme':
      return {
        reasonCode: 'unsupported_scheme',
        message:
          failure.noUptoProxy === true
            ? 'unsupported scheme "upto" on this network: its upto Permit2 proxy is not deployed; ' +
              'pay with "exact" (through Permit2 or EIP-3009)'
            : failure.scheme === 'upto'
              ? `unsupported scheme "upto": it is settled through Permit2 only, for tokens paid by "permit2"`
              : `unsupported scheme "${failure.scheme}": only "exact" and "upto" are supported`,
      }
    case 'UnsupportedTransferMethod':
      return {
        reasonCode: 'unsupported_asset_transfer_method',
        message:
          `unsupported asset transfer method "${failure.method}": ${symbol} is paid here by ` +
          `${failure.allowed.map((m) => `"${m}"`).join(' or ')} only`,
      }
    case 'WrongNetwork':
      return {
        reasonCode: 'invalid_network',
        message: `unsupported network "${failure.network}": this facilitator settles on "${failure.expected}"`,
      }
    case 'WrongAsset':
      return {
        reasonCode: 'invalid_payment_requirements',
        message:
          networkTokens === undefined || networkTokens.length === 0
            ? `unsupported asset ${failure.asset}: this facilitator settles ${symbol} at ${failure.expected}`
            : `unsupported asset ${failure.asset}: on this network this facilitator settles ` +
              networkTokens.map((t) => `${t.symbol} at ${t.address}${t.how ? ` (${t.how})` : ''}`).join(', '),
      }
    case 'ZeroRecipient':
      return {
        reasonCode: 'invalid_payment_requirements',
        message: 'the requirements pay the zero address: tokens sent there are burnt; name a real payTo',
      }
    case 'RecipientMismatch':
      return {
        reasonCode: 'invalid_exact_evm_payload_recipient_mismatch',
        message: `authorization pays ${failure.actual} but the requirements pay ${failure.expected}`,
      }
    case 'ZeroValue':
      return {
        reasonCode: 'invalid_exact_evm_payload_authorization_value',
        message: 'authorized value is zero: a transfer of nothing is not settled',
      }
    case 'AmountBelowMinimum':
      return {
        reasonCode: 'invalid_payment_requirements',
        message:
          `required amount ${units(failure.amount)} is below this facilitator's minimum of ` +
          `${units(failure.minimum)}`,
      }
    case 'ValueBelowAmount':
      return {
        reasonCode: 'invalid_exact_evm_payload_authorization_value',
        message: `authorized value ${units(failure.value)} is below the required ${units(failure.amount)}`,
      }
    case 'AddressDenied':
      return {
        reasonCode: 'address_denied',
        message: `the ${failure.side} ${failure.address} is denied by this facilitator's operator: nothing was sent`,
      }
    case 'InvalidSignature':
      return { reasonCode: 'invalid_exact_evm_payload_signature', message: `invalid signature: ${failure.detail}` }
    case 'Erc6492FactoryNotAllowed':
      return {
        reasonCode: 'erc6492_factory_not_allowed',
        message:
          `the payer's wallet is not deployed yet and its ERC-6492 factory ${failure.factory} is not on this ` +
          `facilitator's allowlist (setting ERC6492_FACTORIES): settling would make the facilitator call ` +
          `that factory`,
      }
    case 'AuthorizationUsed':
      return {
        reasonCode: 'authorization_already_used',
        message: 'authorization already used: its nonce was spent or cancelled on-chain',
      }
    case 'InsufficientFunds':
      return {
        reasonCode: 'insufficient_funds',
        message:
          `insufficient balance of ${symbol}: ${formatTokenAmount(failure.available, decimals)} available, ` +
          `${formatTokenAmount(failure.required, decimals)} required`,
      }
    case 'TokenPaused':
      return {
        reasonCode: 'token_paused',
        message: `${symbol} is paused by its issuer: no transfer can settle until it is unpaused`,
      }
    case 'PayerBlacklisted':
      return {
        reasonCode: 'payer_blacklisted',
        message: `the payer ${failure.payer} is blacklisted by the ${symbol} contract: it cannot send`,
      }
    case 'PayeeBlacklisted':
      return {
        reasonCode: 'payee_blacklisted',
        message: `the payee ${failure.payee} is blacklisted by the ${symbol} contract: it cannot receive`,
      }
    case 'TransferWouldRevert':
      return {
        reasonCode: 'invalid_transaction_state',
        message: `the transfer would revert on-chain${failure.reason ? `: ${failure.reason}` : ''}; nothing was sent`,
      }
    case 'AlreadySettling':
      return {
        reasonCode: 'authorization_already_used',
        message:
          `authorization already used: it is being or has been settled (state ${failure.state}` +
          `${failure.txHash ? `, transaction ${failure.txHash}` : ''})`,
      }
    case 'TransactionReverted':
      return {
        reasonCode: 'invalid_transaction_state',
        message: `settlement transaction ${failure.txHash} reverted${failure.reason ? `: ${failure.reason}` : ''}`,
      }
    case 'PayerSuspended':
      return {
        reasonCode: 'payer_suspended',
        message:
          `the payer ${failure.payer} made a settlement transaction revert (the facilitator paid its gas for ` +
          `nothing): its payments are not sent until ${failure.until.toISOString()}; nothing was sent`,
      }
    case 'ContractPayerGasBudgetSpent':
      return {
        reasonCode: 'contract_payer_gas_budget_spent',
        message:
          `the payer ${failure.payer} has code, and transactions of payers with code reverted on this network, ` +
          `burning the facilitator's budget for them (CONTRACT_PAYER_LONE_LOST_GAS_BUDGET): no payer with code ` +
          `is sent until ${failure.until.toISOString()}; nothing was sent`,
      }
    case 'NewPayerGasBudgetSpent':
      return {
        reasonCode: 'new_payer_gas_budget_spent',
        message:
          `reverts of payers whose funds left spent PAYER_FUNDS_LOST_GAS_BUDGET on this network: the payer ` +
          `${failure.payer}, new here, is not sent until ${failure.until.toISOString()}; nothing was sent`,
      }
    default:
      return explainMechanism(failure, units)
  }
}
