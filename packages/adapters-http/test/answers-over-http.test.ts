import { explainMechanismFailure } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { InfrastructureFailure, SettleOutcome, VerifyOutcome } from '@x402-facilitator/domain'
import { Registry } from 'prom-client'
import type { FailureCase, ReportCase } from '../src/answers/answer-cases.js'
import { failureTerms, reportTerms } from '../src/answers/answer-map.js'
import { failureRows, PAYER, RETRY_AFTER_SECONDS } from './support/answer-rows.js'
import { postJson, specBody, v2Body } from './support/bodies.js'
import { settleRefusals, verifyFailures } from './support/refusal-samples.js'
import { policy, startTestApp, type TestApp } from './support/test-app.js'

const settings = {
  token: policy.asset,
  retryAfterSeconds: RETRY_AFTER_SECONDS,
  explainMechanism: explainMechanismFailure,
}
type Result<A> = TE.TaskEither<InfrastructureFailure, A>

/** The wire shows the map's status, its headers, and its reason code in the body's code field. */
const expectAnswer = async (res: Response, terms: ReturnType<typeof reportTerms>, codeField?: string) => {
  expect(res.status).to.equal(terms.status)
  for (const [name, value] of Object.entries(terms.headers ?? {})) expect(res.headers.get(name), name).to.equal(value)
  const text = await res.text()
  if (codeField !== undefined) expect(JSON.parse(text)).to.have.property(codeField, terms.reasonCode)
}
const failure = (c: FailureCase) => failureTerms(c, settings)
const report = (c: ReportCase) => reportTerms(c)

describe('HTTP: the routes answer what the answer map says (representative cases through the koa app)', () => {
  let settleNext: Result<SettleOutcome>
  let verifyNext: Result<VerifyOutcome>
  let app: TestApp
  before(async () => {
    app = await startTestApp({
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      metrics: new Registry(),
      verifyPayment: () => verifyNext,
      settlePayment: () => settleNext,
      lookUpSettlement: () => TE.right(O.none),
    })
  })
  after(() => app.close())
  const post = (endpoint: string, body: unknown) => postJson(`${app.base}/api/facilitator/${endpoint}`, body)

  it('settle refused (already settling), spec dialect: 200 authorization_already_used', async () => {
    const outcome: SettleOutcome = { _tag: 'Refused', payer: PAYER, refusal: settleRefusals.AlreadySettling.refusal }
    settleNext = TE.right(outcome)
    await expectAnswer(await post('settle', specBody()), failure(outcome), 'errorCode')
  })

  it('settle pending, x402 v2 dialect: 202 settlement_pending', async () => {
    const pending = failureRows.Pending[0]!.case
    settleNext = TE.right(pending)
    await expectAnswer(await post('settle', v2Body()), failure(pending), 'errorReason')
  })

  it('settle under a reused Idempotency-Key: 409 idempotency_key_reused', async () => {
    const conflict = failureRows.IdempotencyConflict[0]!.case
    settleNext = TE.right(conflict)
    await expectAnswer(await post('settle', specBody()), failure(conflict), 'errorCode')
  })

  it("verify failing a rule, x402 v2 dialect: 200 with the rule's code", async () => {
    const invalid: VerifyOutcome = { _tag: 'Invalid', payer: PAYER, failure: verifyFailures.InsufficientFunds.refusal }
    verifyNext = TE.right(invalid)
    await expectAnswer(await post('verify', v2Body()), failure(invalid), 'invalidReason')
  })

  it('verify with the chain down: 503 service_unavailable with Retry-After', async () => {
    const down: InfrastructureFailure = { _tag: 'ChainUnavailable', reason: 'node down' }
    verifyNext = TE.left(down)
    await expectAnswer(await post('verify', specBody()), failure(down), 'reasonCode')
  })

  it('a lookup of an unknown settlement: 404 settlement_not_found', async () => {
    const res = await fetch(`${app.base}/api/facilitator/settlements/0x${'ab'.repeat(32)}`)
    await expectAnswer(res, failure({ _tag: 'SettlementNotFound' }), 'errorCode')
  })

  it("probes, capabilities, metrics: the map's status and headers", async () => {
    await expectAnswer(await fetch(`${app.base}/healthz`), report({ _tag: 'Healthy' }))
    await expectAnswer(await fetch(`${app.base}/api/facilitator/supported`), report({ _tag: 'Capabilities' }))
    const metrics = await fetch(`${app.base}/metrics`)
    await expectAnswer(metrics, report({ _tag: 'Metrics', contentType: new Registry().contentType }))
  })
})

describe('HTTP: API keys and the rate limit answer what the answer map says', () => {
  let app: TestApp
  before(async () => {
    const unavailable = () => TE.left({ _tag: 'JournalUnavailable' as const, reason: 'not under test' })
    app = await startTestApp({
      apiKeys: ['key-one'],
      rateLimit: { points: 1, windowSeconds: 60 },
      verifyPayment: unavailable,
      settlePayment: unavailable,
      lookUpSettlement: unavailable,
    })
  })
  after(() => app.close())

  it("no key: 401 unauthorized with WWW-Authenticate, in the endpoint's shape", async () => {
    const res = await postJson(`${app.base}/api/facilitator/settle`, specBody())
    await expectAnswer(res, failure({ _tag: 'Unauthorized' }), 'errorCode')
  })

  it('over the limit: 429 rate_limited with Retry-After', async () => {
    const asKeyOne = { authorization: 'Bearer key-one' }
    await postJson(`${app.base}/api/facilitator/verify`, specBody(), asKeyOne)
    const res = await postJson(`${app.base}/api/facilitator/verify`, specBody(), asKeyOne)
    const retryAfter = Number(res.headers.get('retry-after'))
    expect(retryAfter).to.be.within(1, 60)
    await expectAnswer(res, failure({ _tag: 'RateLimited', points: 1, windowSeconds: 60, retryAfter }), 'reasonCode')
  })
})
