import type { Explained } from '../../model/reason-codes.js'
import { explainPermit2Failure } from './permit2-reason-codes.js'
import type { Permit2Failure } from './permit2-failures.js'
import { explainValidityFailure, isValidityFailure, type ValidityFailure } from './validity-failures.js'

/** The EVM mechanism's own refusals: rule 6's window, and Permit2's rules. */
export type EvmFailure = ValidityFailure | Permit2Failure

/** The EVM mechanism's wording of its own refusals; `units` words an amount in the token. */
export const explainEvmFailure = (failure: EvmFailure, units: (n: bigint) => string): Explained =>
  isValidityFailure(failure) ? explainValidityFailure(failure) : explainPermit2Failure(failure, units)
