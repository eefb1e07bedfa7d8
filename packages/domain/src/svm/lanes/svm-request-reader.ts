import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../../model/failures.js'
import { effectiveMinAmount, type FacilitatorPolicy } from '../../model/payment.js'
import type { RequestReader, UnservedRequest } from '../../ports/request-reader.js'
import type { SvmPaymentRequest, SvmPaymentWire } from '../model/svm-payment.js'
import type { SvmCodec } from '../ports/svm-chain.js'
import { svmPaymentRules, type SvmPaymentTerms } from '../rules/payment-rules.js'

/** What an SVM route reads a request with: its policy (network: its CAIP-2 id), its fee payers, its caps. */
export interface SvmReaderDeps {
  readonly policy: FacilitatorPolicy
  readonly codec: SvmCodec
  readonly feePayers: ReadonlySet<string>
  readonly limits: Pick<SvmPaymentTerms, 'maxComputeUnits' | 'maxComputeUnitPrice' | 'maxSigners'>
}

/** A refusal before the transaction names its payer: nobody is named. */
const unserved = (failure: VerifyFailure, payer = ''): E.Either<UnservedRequest, never> => E.left({ payer, failure })

/** The route's own terms: scheme, network, mint, and the network's smallest amount (rules 2, 3 and 5b). */
const routeRule = ({ requirements }: SvmPaymentWire, policy: FacilitatorPolicy): VerifyFailure | undefined => {
  if (requirements.scheme !== 'exact') return { _tag: 'UnsupportedScheme', scheme: requirements.scheme }
  if (requirements.network !== policy.network)
    return { _tag: 'WrongNetwork', network: requirements.network, expected: policy.network }
  if (requirements.asset !== policy.asset.address)
    return { _tag: 'WrongAsset', asset: requirements.asset, expected: policy.asset.address }
  const minimum = effectiveMinAmount(policy)
  return requirements.amount < minimum
    ? { _tag: 'AmountBelowMinimum', amount: requirements.amount, minimum }
    : undefined
}

/**
 * An SVM request as its payment, by the rules that need no chain (docs/ARCHITECTURE.md §3, Solana): the route's terms,
 * then the transaction's (payment-rules.ts). Only the fee payer the transaction names can sign it: it is the sender.
 */
export const svmRequestReader =
  (deps: SvmReaderDeps): RequestReader<SvmPaymentWire, SvmPaymentRequest> =>
  async (request) => {
    const refused = routeRule(request, deps.policy)
    if (refused !== undefined) return unserved(refused)
    const decoded = await deps.codec.read(request.transaction)
    if (E.isLeft(decoded)) return unserved({ _tag: 'SvmTransactionUndecodable', detail: decoded.left })
    const transaction = decoded.right
    const { requirements } = request
    const terms: SvmPaymentTerms = {
      ...deps.limits,
      feePayer: requirements.extra.feePayer,
      feePayers: deps.feePayers,
      asset: requirements.asset,
      amount: requirements.amount,
      payToAccountOf: await deps.codec.tokenAccountsOf(requirements.payTo, requirements.asset),
      ...(requirements.extra.memo === undefined ? {} : { memo: requirements.extra.memo }),
    }
    const transfer = svmPaymentRules(transaction, terms)
    if (E.isLeft(transfer)) return unserved(transfer.left, payerNamed(transaction.instructions[2]?.accounts))
    const payment: SvmPaymentRequest = {
      requirements,
      wire: request.transaction,
      transaction,
      payer: transfer.right.authority,
      source: transfer.right.source,
      feePayer: transaction.feePayer,
    }
    return E.right({ payment, sender: payment.feePayer })
  }

/** Who a refused transfer instruction names as its authority (its fourth account), if it names one. */
const payerNamed = (accounts: ReadonlyArray<string> | undefined): string => accounts?.[3] ?? ''
