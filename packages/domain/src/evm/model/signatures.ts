import type { Hex } from './evm-hex.js'

/** A 65-byte `r ‖ s ‖ v` signature whose v is 0 or 1 (the recovery id), as some signers write it. */
export const hasRecoveryIdV = (signature: Hex): boolean =>
  signature.length === 132 && /^0[01]$/.test(signature.slice(130))

/**
 * The bytes a settle sends for a signature rule 7 accepted (docs/ARCHITECTURE.md §3, rule 7). Only an ECDSA signature
 * of the payer's own key, the payer having no code (`byKey`: an EIP-7702-delegated EOA has code, and the token calls
 * its `isValidSignature`), is a v, r, s the token recovers itself: its v 0/1 becomes 27/28, which every token's
 * `ecrecover` path wants (USDC's ECRecover refuses 0/1). A payer with code gets its bytes verbatim: the token hands
 * them to its `isValidSignature`, where a v of 1 may mean something else (a Safe reads it as an approved hash).
 */
export const sendableSignature = (signature: Hex, byKey: boolean): Hex =>
  byKey && hasRecoveryIdV(signature)
    ? `0x${signature.slice(2, 130)}${signature.endsWith('0') ? '1b' : '1c'}`
    : signature
