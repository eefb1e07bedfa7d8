/** Programs an `exact` SVM payment's transaction may call (@x402/svm 2.27's facilitator accepts these and no other). */
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
export const LIGHTHOUSE_PROGRAM = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95'

export const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM])

/** One instruction of a transaction's message, its accounts resolved to addresses (base58). */
export interface SvmInstruction {
  readonly programAddress: string
  readonly accounts: ReadonlyArray<string>
  readonly data: Uint8Array
}

/**
 * A payer's partially signed transaction, as the SVM adapter decodes it (`payload.transaction`, base64): the domain
 * reads its message, never its bytes.
 */
export interface SvmTransaction {
  /**
   * The payment's identity: its message's digest (SHA-256, hex), whatever signatures it carries. A payer can sign one
   * message many ways (ed25519 lets the signer pick its nonce); the chain runs a message once.
   */
  readonly messageId: string
  /** The message's first account: who pays the fee (our key, when the payment is well formed). */
  readonly feePayer: string
  /** Every account that must sign, the fee payer first, in the message's order. */
  readonly signers: ReadonlyArray<string>
  /** The signers whose signature is present and valid over the message (the adapter checks ed25519). */
  readonly validSignatures: ReadonlySet<string>
  readonly instructions: ReadonlyArray<SvmInstruction>
  /** Accounts reached through address lookup tables: the layout rules refuse any (the message names every account). */
  readonly usesLookupTables: boolean
}
