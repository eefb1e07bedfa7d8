import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  chainUnavailable,
  type Authorization,
  type AuthorizationEnd,
  type Hex,
  type MinedTransaction,
  type PayerState,
  type TokenReader,
  type TransferTrial,
} from '@x402-facilitator/domain'
import { EXCEEDS_BALANCE_REASON, TOKEN } from './sample-values.js'

/** One payer's state as the test sets it; trials and logs as the test scripts them. */
export class FakeToken implements TokenReader {
  state: PayerState = { balance: 5_000_000n, authorizationUsed: false }
  down = false
  reads = 0
  readonly domain = TE.right({ name: 'USD Coin', version: '2', chainId: 31337n, verifyingContract: TOKEN })
  readonly payerState = () => {
    this.reads++
    return this.down ? TE.left(chainUnavailable('connection refused')) : TE.right(this.state)
  }
  /** What the trial of the settle's transaction says (rule 10) of a payment within the payer's balance. */
  transfer: TransferTrial = { _tag: 'WouldSucceed', gasUsed: 61_234n }
  /** A trial of one authorization answering otherwise than `transfer` [none]. */
  trialFor: (authorization: Authorization) => TransferTrial | undefined = () => undefined
  /** Whether the trial finds code at the payer's address [unset: not read]. */
  payerHasCode: boolean | undefined
  readonly trialPayment = (authorization: Authorization) => {
    this.reads++
    const code = this.payerHasCode === undefined ? {} : { payerHasCode: this.payerHasCode }
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    return TE.right({ ...this.state, ...code, transfer: this.trialFor(authorization) ?? this.trialOf(authorization) })
  }
  /** As the token's own trial: a transfer above the balance reverts with its reason. */
  private trialOf(authorization: Authorization): TransferTrial {
    if (authorization.value <= this.state.balance) return this.transfer
    const refusals = { paused: false, payerBlacklisted: false, payeeBlacklisted: false }
    return { _tag: 'WouldRevert', ...refusals, reason: EXCEEDS_BALANCE_REASON }
  }
  /** The transaction that used any authorization, as the chain's logs would say; none unless a test sets it. */
  usedBy: MinedTransaction | undefined
  /** The transaction that used one authorization (by its nonce), before `usedBy`. */
  readonly usedByNonce = new Map<string, MinedTransaction>()
  /** The claim times the searches were given (how far back a real token's logs are read). */
  readonly searchedFromClaims: Date[] = []
  readonly authorizationUsedBy = (authorization?: Authorization, claimedAt?: Date) => {
    if (claimedAt !== undefined) this.searchedFromClaims.push(claimedAt)
    return TE.right(this.usedOf(authorization?.nonce))
  }
  /** The transaction that cancelled the authorization (`AuthorizationCanceled`); none unless a test sets it. */
  cancelledBy: MinedTransaction | undefined
  readonly authorizationEndedBy = (authorization?: Authorization, claimedAt?: Date) => {
    if (claimedAt !== undefined) this.searchedFromClaims.push(claimedAt)
    const used = this.usedOf(authorization?.nonce)
    if (this.cancelledBy !== undefined) {
      return TE.right(O.some<AuthorizationEnd>({ ...this.cancelledBy, how: 'cancelled' }))
    }
    return TE.right(O.isSome(used) ? O.some<AuthorizationEnd>({ ...used.value, how: 'used' }) : O.none)
  }
  private usedOf(nonce: Hex | undefined): O.Option<MinedTransaction> {
    return O.fromNullable((nonce === undefined ? undefined : this.usedByNonce.get(nonce)) ?? this.usedBy)
  }
}
