import type { Authorization } from './evm-payment.js'
import { allowanceConflict, type AllowanceInFlight, type PaymentKind } from '../../ports/payer-exposure.js'

/**
 * How an EVM payment spends its payer's funds (rule 9′): EIP-3009 from the balance, Permit2 through the payer's
 * allowance to Permit2, and one carrying a sponsored EIP-2612 permit sets that allowance first.
 */
export const paymentKindOf = (permit2: Authorization['permit2']): PaymentKind =>
  permit2 === undefined ? 'balance' : permit2.sponsoredPermit === undefined ? 'allowance' : 'allowance-setter'

/** Rule 9′'s conflict (`allowanceConflict`) in Permit2's words, as `Permit2AllowanceInFlight` names it. */
export const permit2Conflict = (
  kind: PaymentKind,
  inFlight: AllowanceInFlight,
): 'SponsoredPermitInFlight' | 'Permit2PaymentsInFlight' | undefined => {
  const conflict = allowanceConflict(kind, inFlight)
  if (conflict === undefined) return undefined
  return conflict === 'SetterInFlight' ? 'SponsoredPermitInFlight' : 'Permit2PaymentsInFlight'
}
