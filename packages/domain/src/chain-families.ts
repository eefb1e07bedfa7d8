import type { SettleRefusal, VerifyFailure } from './model/failures.js'
import type { TokenInfo } from './model/payment.js'
import { explainRefusal, type Explained, type MechanismExplainer } from './model/reason-codes.js'
import { explainEvmFailure } from './evm/model/evm-explainer.js'
import { explainSvmFailure, isSvmFailure } from './svm/model/svm-failures.js'

/**
 * The chain families this domain holds (docs/ARCHITECTURE.md §1), where one answer must cover all of them: each
 * family's own refusals are worded by its own explainer.
 */
export const explainMechanismFailure: MechanismExplainer = (failure, units) =>
  isSvmFailure(failure) ? explainSvmFailure(failure) : explainEvmFailure(failure, units)

/** Any refusal worded: the core's, and each family's own. */
export const explainAnyRefusal = (
  failure: VerifyFailure | SettleRefusal,
  { asset }: { readonly asset: TokenInfo },
): Explained => explainRefusal(failure, { asset, explainMechanism: explainMechanismFailure })
