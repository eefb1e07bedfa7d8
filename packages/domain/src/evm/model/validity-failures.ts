import type { Explained } from '../../model/reason-codes.js'

/** Rule 6: an EIP-3009 authorization's window (`validAfter`, `validBefore`) does not hold now (unix seconds). */
export type ValidityFailure =
  | { readonly _tag: 'NotYetValid'; readonly validAfter: bigint; readonly now: bigint }
  | { readonly _tag: 'Expired'; readonly validBefore: bigint; readonly now: bigint; readonly margin: bigint }

export type ValidityReasonCode =
  'invalid_exact_evm_payload_authorization_valid_after' | 'invalid_exact_evm_payload_authorization_valid_before'

declare module '../../model/failures.js' {
  interface MechanismFailures {
    readonly validity: ValidityFailure
  }
}

declare module '../../model/reason-codes.js' {
  interface MechanismReasonCodes {
    readonly validity: ValidityReasonCode
  }
}

const VALIDITY_TAGS: ReadonlySet<string> = new Set<ValidityFailure['_tag']>(['NotYetValid', 'Expired'])

export const isValidityFailure = (failure: { readonly _tag: string }): failure is ValidityFailure =>
  VALIDITY_TAGS.has(failure._tag)

/** Wire code and message of rule 6's failure. */
export const explainValidityFailure = (failure: ValidityFailure): Explained => {
  switch (failure._tag) {
    case 'NotYetValid':
      return {
        reasonCode: 'invalid_exact_evm_payload_authorization_valid_after',
        message: `authorization not yet valid: validAfter ${failure.validAfter} is not before now (${failure.now})`,
      }
    case 'Expired':
      return {
        reasonCode: 'invalid_exact_evm_payload_authorization_valid_before',
        message:
          `authorization expired or expires too soon: validBefore ${failure.validBefore} must be after now + ` +
          `${failure.margin} s (${failure.now + failure.margin})`,
      }
  }
}
