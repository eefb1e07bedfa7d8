import type * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../../model/failures.js'
import type { Authorization } from '../model/evm-payment.js'
import type { AddressScreen } from '../../ports/address-screen.js'
import { ensure } from './request-rules.js'

/**
 * Rule S1 (docs/ARCHITECTURE.md §3): neither the payer (`from`) nor the payee (`to`; a Permit2 payment's `witness.to`)
 * is on the operator's deny list. The payer is judged first. Run after the request's own rules, before any chain read.
 */
export const partiesAreNotDenied = (
  authorization: Pick<Authorization, 'from' | 'to'>,
  screen: AddressScreen | undefined,
): E.Either<VerifyFailure, void> => {
  const side =
    screen === undefined
      ? undefined
      : screen.isDenied(authorization.from)
        ? 'payer'
        : screen.isDenied(authorization.to)
          ? 'payee'
          : undefined
  return ensure(side === undefined, () => ({
    _tag: 'AddressDenied',
    side: side!,
    address: side === 'payer' ? authorization.from : authorization.to,
  }))
}
