import type { BatchItemOutcome } from '../ports/transfer-submitter.js'

/**
 * A failed item whose call took ≥ 31/32 of the item bound ran out of gas: a wallet that burns all it is given leaves the
 * token the 64th of what it had (EIP-150), which the token hands back unused when it reverts — so "63/64" misses it.
 * Measured on Circle's USDC: a GasTrapWallet's item reported 292 775 of a 300 000 bound (97.6 %); an honest failure
 * (a bad signature, an expired authorization) uses a fraction of it.
 */
export const burntItsBound = (outcome: BatchItemOutcome, itemGasLimit: bigint): boolean =>
  !outcome.succeeded && outcome.notRun !== true && outcome.gasUsed !== undefined && outcome.gasUsed * 32n >= itemGasLimit * 31n
