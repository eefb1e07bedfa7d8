import type { SettleRefusal, VerifyFailure } from '../../model/failures.js'
import type { TokenInfo } from '../../model/payment.js'
import { explainRefusal, type Explained, type MechanismExplainer } from '../../model/reason-codes.js'
import { explainPermit2Failure } from './permit2-reason-codes.js'
import { explainValidityFailure, isValidityFailure } from './validity-failures.js'

/** The EVM mechanism's wording of its own refusals: rule 6's window, and Permit2's rules. */
export const explainEvmFailure: MechanismExplainer = (failure, units) =>
  isValidityFailure(failure) ? explainValidityFailure(failure) : explainPermit2Failure(failure, units)

/** Any refusal of an EVM payment worded: the core's, and this mechanism's own. */
export const explainEvmRefusal = (
  failure: VerifyFailure | SettleRefusal,
  { asset }: { readonly asset: TokenInfo },
): Explained => explainRefusal(failure, { asset, explainMechanism: explainEvmFailure })
