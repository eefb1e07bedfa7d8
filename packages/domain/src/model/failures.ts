import type { Address, TxHash } from './payment.js'

/**
 * Each payment mechanism's own refusals, added by declaration merging where the mechanism defines them (the EVM's:
 * evm/model/permit2-failures.ts): the core names none of them, and words them through the mechanism
 * (`MechanismExplainer`, reason-codes.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MechanismFailures {}
export type MechanismFailure = MechanismFailures[keyof MechanismFailures]

/** A rule of docs/ARCHITECTURE.md §3 that a request did not pass: an answer (HTTP 200), not an error. */
export type VerifyFailure =
  | { readonly _tag: 'UnsupportedVersion'; readonly version: number }
  | {
      readonly _tag: 'UnsupportedScheme'
      readonly scheme: string
      /** `upto` of a Permit2 token on a network without the upto proxy (Permit2 `exact` alone). */
      readonly noUptoProxy?: true
    }
  /** A transfer method this facilitator does not settle (yet): Permit2 `exact` (rule 2c). */
  | {
      readonly _tag: 'UnsupportedTransferMethod'
      readonly method: string
      /** How the token may be paid here. */
      readonly allowed: ReadonlyArray<string>
    }
  | { readonly _tag: 'WrongNetwork'; readonly network: string; readonly expected: string }
  | { readonly _tag: 'WrongAsset'; readonly asset: Address; readonly expected: Address }
  | { readonly _tag: 'ZeroRecipient' }
  | { readonly _tag: 'RecipientMismatch'; readonly expected: Address; readonly actual: Address }
  | { readonly _tag: 'ZeroValue' }
  | { readonly _tag: 'AmountBelowMinimum'; readonly amount: bigint; readonly minimum: bigint }
  | { readonly _tag: 'ValueBelowAmount'; readonly value: bigint; readonly amount: bigint }
  /** Rule S1: the payer or the payee is on the operator's deny list (`DENY_LIST_FILE`). */
  | { readonly _tag: 'AddressDenied'; readonly side: 'payer' | 'payee'; readonly address: Address }
  | { readonly _tag: 'InvalidSignature'; readonly detail: string }
  | { readonly _tag: 'Erc6492FactoryNotAllowed'; readonly factory: Address }
  | { readonly _tag: 'AuthorizationUsed' }
  | { readonly _tag: 'InsufficientFunds'; readonly available: bigint; readonly required: bigint }
  | { readonly _tag: 'TokenPaused' }
  | { readonly _tag: 'PayerBlacklisted'; readonly payer: Address }
  | { readonly _tag: 'PayeeBlacklisted'; readonly payee: Address }
  /** The trial of the settle's transaction failed for a reason the token's flags do not name. */
  | { readonly _tag: 'TransferWouldRevert'; readonly reason?: string }
  | MechanismFailure

/** Settle refusals that are not verify rules. */
export type SettleRefusal =
  | { readonly _tag: 'AlreadySettling'; readonly state: SettlementState; readonly txHash?: TxHash }
  | { readonly _tag: 'TransactionReverted'; readonly txHash: TxHash; readonly reason?: string }
  /**
   * A payer with code whose own transaction reverted on our gas: not sent again before `until` (docs/ARCHITECTURE.md
   * §5.7).
   */
  | { readonly _tag: 'PayerSuspended'; readonly payer: Address; readonly until: Date }
  /**
   * Lone transactions of payers with code reverted on this network, burning more gas within the window than its budget
   * allows (fresh wallets cost nothing): no payer with code is sent before `until` (docs/ARCHITECTURE.md §5.7).
   */
  | { readonly _tag: 'ContractPayerGasBudgetSpent'; readonly payer: Address; readonly until: Date }
  /**
   * Lone transactions of payers without code reverted for their funds on this network, burning more gas within the
   * window than its budget allows: a payer without code not seen paying is not sent before `until` (§5.7).
   */
  | { readonly _tag: 'NewPayerGasBudgetSpent'; readonly payer: Address; readonly until: Date }

/**
 * `final`: a `confirmed` row whose block is `CONFIRMATIONS` deep on the chain (docs/ARCHITECTURE.md §5.6).
 * `cancelled`: the payer cancelled the authorization (`AuthorizationCanceled`) before ours was mined (§5.5).
 * `unsettleable`: a row a reorg sent back that can no longer be mined (expired, funds gone), its reason stored (§5.6).
 */
export type SettlementState =
  | 'claimed'
  | 'submitted'
  | 'confirmed'
  | 'final'
  | 'reverted'
  | 'released'
  | 'cancelled'
  | 'unsettleable'
  /** An `upto` settle of 0: every rule passed, nothing sent, the authorization kept from any later settle. */
  | 'waived'

/** The chain did not answer in time, or refused to talk: a 503 before anything was broadcast. */
export interface ChainUnavailable {
  readonly _tag: 'ChainUnavailable'
  readonly reason: string
  /**
   * This settle's own transaction was refused for its signing key (too little ETH), nothing of it sent: another key may
   * settle it (docs/ARCHITECTURE.md §5.8).
   */
  readonly keyRefused?: true
}

/** The settlement journal (Postgres) did not answer in time: a 503 before anything was broadcast. */
export interface JournalUnavailable {
  readonly _tag: 'JournalUnavailable'
  readonly reason: string
  /**
   * The call surely wrote nothing (Postgres refused it, or no connection could be opened). Otherwise (no answer in
   * time, a connection lost mid-call) a write may have committed, and whoever depends on it must find out.
   */
  readonly nothingWritten?: true
}

export type InfrastructureFailure = ChainUnavailable | JournalUnavailable

export const chainUnavailable = (reason: string): ChainUnavailable => ({ _tag: 'ChainUnavailable', reason })
export const keyRefused = (reason: string): ChainUnavailable => ({ _tag: 'ChainUnavailable', reason, keyRefused: true })
export const journalUnavailable = (reason: string, nothingWritten = false): JournalUnavailable =>
  nothingWritten ? { _tag: 'JournalUnavailable', reason, nothingWritten } : { _tag: 'JournalUnavailable', reason }
