import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type Hex, type SettleOutcome } from '@x402-facilitator/domain'
import { makeDeps, validRequest, withEvm, type TestDeps } from './fakes.js'

/** What the batching tests share: many settles at once on the fakes, with a submission queue that batches. */
export const options = { requirementsRecord: { amount: '1000000' }, answerId: 'answer' }
export const nonce = (n: number): Hex => `0x${n.toString(16).padStart(64, 'c')}`

export const settleManyWith = async (deps: TestDeps, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, n) => settlePayment(validRequest({ nonce: nonce(n) }), options)(withEvm(deps))()),
  )
export const settleMany = async (d: ReturnType<typeof makeDeps>, count: number) => settleManyWith(d.deps, count)

export const outcomes = (results: ReadonlyArray<E.Either<unknown, SettleOutcome>>): SettleOutcome[] =>
  results.map((r) => {
    if (E.isLeft(r)) throw new Error('unexpected infrastructure failure')
    return r.right
  })

/** The fakes with batches of up to `maxItems`, and payers rich enough for every payment. */
export const batched = (maxItems: number, windowMs?: number) => {
  const d = makeDeps({ maxItems, windowMs })
  d.token.state = { balance: 1_000_000_000n, authorizationUsed: false }
  return d
}

/** A payer's key recovered the signature (the fakes' default is a payer with code). */
export const BY_KEY: TestDeps['signatures'] = {
  checkAuthorization: () => async () => E.right({ _tag: 'SignatureValid', byKey: true } as const),
}
