import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable, VerifyFailure } from '../model/failures.js'
import type { AddressScreen } from '../ports/address-screen.js'
import type { SvmPaymentRequest } from './model/svm-payment.js'
import type { SvmChain } from './ports/svm-chain.js'

/** What verify reads beyond the request: the deny list and the cluster. */
export interface SvmVerifyDeps {
  readonly screen: AddressScreen
  readonly chain: SvmChain
}

export type SvmVerdict =
  | { readonly _tag: 'Valid'; readonly payer: string; readonly funds: bigint }
  | { readonly _tag: 'Invalid'; readonly payer: string; readonly failure: VerifyFailure }

/**
 * The rules that need the chain, after the request's (svm-request-reader.ts), first failure wins: neither party on the
 * deny list (rule S1), the blockhash still landable, the transaction run without our signature succeeds (simulation:
 * the payer's funds, the payee's token account, the token's own checks), and the payer's token balance read (what a
 * settle reserves the amount against, rule 9). Nothing is signed or sent.
 */
export const verifySvmPayment =
  (payment: SvmPaymentRequest) =>
  ({ screen, chain }: SvmVerifyDeps): TE.TaskEither<ChainUnavailable, SvmVerdict> => {
    const { payer } = payment
    const invalid = (failure: VerifyFailure): SvmVerdict => ({ _tag: 'Invalid', payer, failure })
    const denied = [payer, payment.requirements.payTo].find((address) => screen.isDenied(address))
    if (denied !== undefined)
      return TE.right(invalid({ _tag: 'AddressDenied', side: denied === payer ? 'payer' : 'payee', address: denied }))
    return pipe(
      chain.landable(payment.wire),
      TE.chain((landable) =>
        !landable
          ? TE.right(invalid({ _tag: 'SvmBlockhashExpired' }))
          : pipe(
              chain.simulate(payment.wire),
              TE.chain((refused) =>
                refused !== undefined
                  ? TE.right(invalid({ _tag: 'SvmSimulationFailed', reason: refused }))
                  : pipe(
                      chain.tokenBalance(payment.source),
                      TE.map((funds): SvmVerdict => ({ _tag: 'Valid', payer, funds: funds ?? 0n })),
                    ),
              ),
            ),
      ),
    )
  }
