import type { PaymentEnds } from '../ports/payment-ends.js'
import { authorizationOf, evmRow } from './model/evm-row.js'
import type { TokenReader } from './ports/token-reader.js'

/** Who else used or cancelled a row's EIP-3009 or Permit2 authorization: the token's (or Permit2's) own events. */
export const evmPaymentEnds = (
  token: Pick<TokenReader, 'authorizationUsedBy' | 'authorizationEndedBy'>,
): PaymentEnds => ({
  usedBy: (row, since, toBlock) => token.authorizationUsedBy(authorizationOf(evmRow(row)), since, toBlock),
  endedBy: (row, since, toBlock) => token.authorizationEndedBy(authorizationOf(evmRow(row)), since, toBlock),
})
