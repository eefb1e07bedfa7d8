import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  settlementKey,
  type FacilitatorPolicy,
  type Payment,
  type RequestReader,
  type SubmissionItem,
  type VerifyFailure,
  type VerifyOutcome,
} from '@x402-facilitator/domain'
import { isSignedByPayer, type Ledger, type Voucher } from './ledger.js'

/** A request of the ledger family, as its codecs would decode it: what the resource server asks, and the voucher. */
export interface LedgerRequest {
  readonly network: string
  readonly payTo: string
  readonly amount: bigint
  readonly voucher: Voucher
}

/** What a ledger settle submits: the voucher, and the amount asked of it. */
export interface LedgerItem extends SubmissionItem {
  readonly voucher: Voucher
}

/** The family's request rules that need no chain: the network must be the route's. */
export const ledgerRequestReader =
  (policy: FacilitatorPolicy): RequestReader<LedgerRequest, LedgerRequest> =>
  async (request) =>
    request.network === policy.network
      ? E.right({ payment: request })
      : E.left({
          payer: request.voucher.from,
          failure: { _tag: 'WrongNetwork', network: request.network, expected: policy.network },
        })

const firstFailure = (request: LedgerRequest, ledger: Ledger): VerifyFailure | undefined => {
  const { voucher, payTo, amount } = request
  if (!isSignedByPayer(voucher)) return { _tag: 'InvalidSignature', detail: 'the voucher is not signed by its payer' }
  if (voucher.to !== payTo) return { _tag: 'RecipientMismatch', expected: payTo, actual: voucher.to }
  if (voucher.value < amount) return { _tag: 'ValueBelowAmount', value: voucher.value, amount }
  if (ledger.spentIn(voucher.id) !== undefined) return { _tag: 'AuthorizationUsed' }
  const balance = ledger.balanceOf(voucher.from)
  if (balance < amount) return { _tag: 'InsufficientFunds', available: balance, required: amount }
  return undefined
}

/** A ledger request as the core's settle sees it: identity = the voucher's id, verify = the rules above. */
export const ledgerPayment = (policy: FacilitatorPolicy, ledger: Ledger, request: LedgerRequest): Payment => {
  const { voucher, amount } = request
  const payer = voucher.from
  return {
    key: settlementKey(policy, payer, voucher.id),
    maxTimeoutSeconds: 30,
    claimTerms: (signature) => ({ payee: voucher.to, value: voucher.value, signature }),
    exposure: () => ({ payer, value: voucher.value, kind: 'balance' }),
    waiver: () => undefined,
    heldWhileReleased: () => false,
    verify: () => {
      const failure = firstFailure(request, ledger)
      const item: LedgerItem = { signature: voucher.signature, voucher }
      const verdict: VerifyOutcome =
        failure !== undefined
          ? { _tag: 'Invalid', payer, failure }
          : {
              _tag: 'Valid',
              payer,
              funds: ledger.balanceOf(payer),
              signature: voucher.signature,
              payerHasCode: false,
              item,
              unreserved: () => ({ _tag: 'InsufficientFunds', available: ledger.balanceOf(payer), required: amount }),
            }
      return TE.right(verdict)
    },
  }
}
