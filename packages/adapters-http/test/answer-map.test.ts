import { explainMechanismFailure } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type { FailureCase } from '../src/answers/answer-cases.js'
import { failureTerms, REFUSAL_STATUS, reportTerms, type AnswerSettings } from '../src/answers/answer-map.js'
import { answerMalformed, answerSettle, answerVerify, failureAnswer, reportAnswer } from '../src/answers/http-answer.js'
import { specDialect } from '../src/dialects/spec-dialect.js'
import { x402V2Dialect } from '../src/dialects/x402-v2-dialect.js'
import { failureRows, reportRows, RETRY_AFTER_SECONDS, settled, valid, type Row } from './support/answer-rows.js'
import { settleRefusals, verifyFailures } from './support/refusal-samples.js'
import { policy, servedNetwork } from './support/test-app.js'

const settings: AnswerSettings = {
  token: policy.asset,
  retryAfterSeconds: RETRY_AFTER_SECONDS,
  explainMechanism: explainMechanismFailure,
}
const spec = specDialect({ addressChecksum: (lower) => lower }).wording
const v2 = x402V2Dialect({ addressChecksum: (lower) => lower, networks: [servedNetwork] }).wording

/** `Refused AlreadySettling → 200 authorization_already_used` */
const label = ({ case: c, status, code }: Row<{ readonly _tag: string }>) => {
  const { failure, refusal } = c as { failure?: { _tag?: string }; refusal?: { _tag: string } }
  const inner = refusal?._tag ?? failure?._tag
  return `${c._tag}${inner === undefined ? '' : ` ${inner}`} → ${status} ${code ?? ''}`
}
const rowsOf = <Tag extends FailureCase['_tag']>(...tags: Tag[]) =>
  tags.flatMap((tag) => failureRows[tag] as ReadonlyArray<Row<Extract<FailureCase, { readonly _tag: Tag }>>>)
const failures = rowsOf(...(Object.keys(failureRows) as Array<FailureCase['_tag']>))

/** What the answer must carry beside its body, as a row states it. */
const expected = (row: Row<unknown>) => ({ status: row.status, reasonCode: row.code, headers: row.headers ?? {} })
const carried = (answer: { status: number; reasonCode?: string | undefined; headers?: object | undefined }) => ({
  status: answer.status,
  reasonCode: answer.reasonCode,
  headers: answer.headers ?? {},
})

describe('answer map: every failure → status, reason code, headers and message', () => {
  failures.forEach((row) =>
    it(label(row), () => {
      const terms = failureTerms(row.case, settings)
      expect(carried(terms)).to.deep.equal(expected(row))
      if (row.message !== undefined) expect(terms.message).to.equal(row.message)
      else expect(terms.message).to.be.a('string').and.not.equal('')
    }),
  )

  it('the refusal samples cover every refusal tag the map knows', () => {
    const sampled = [...Object.keys(verifyFailures), ...Object.keys(settleRefusals)]
    expect(sampled.sort()).to.deep.equal(Object.keys(REFUSAL_STATUS).sort())
  })
})

describe('answer map: a failure in each endpoint shape carries the reason code in its body', () => {
  failures.forEach((row) =>
    it(label(row), () => {
      const message = failureTerms(row.case, settings).message
      const verify = failureAnswer(row.case, 'verify', settings)
      const settle = failureAnswer(row.case, 'settle', settings)
      const other = failureAnswer(row.case, 'other', settings)
      for (const answer of [verify, settle, other]) expect(carried(answer)).to.deep.equal(expected(row))
      expect(verify.body).to.deep.equal({ valid: false, invalidReason: message, reasonCode: row.code })
      expect(settle.body).to.deep.equal({ success: false, error: message, errorCode: row.code })
      expect(other.body).to.deep.equal({ error: message, errorCode: row.code })
    }),
  )
})

describe('answer map: verify and settle answers, both dialects, take status and headers from the map', () => {
  rowsOf('Invalid', 'ChainUnavailable', 'JournalUnavailable').forEach((row) =>
    it(`verify: ${label(row)}`, () => {
      const result = row.case._tag === 'Invalid' ? E.right(row.case) : E.left(row.case)
      const [inSpec, inV2] = [answerVerify(result, spec, settings), answerVerify(result, v2, settings)]
      for (const answer of [inSpec, inV2]) expect(carried(answer)).to.deep.equal(expected(row))
      expect(inSpec.body).to.include({ valid: false, reasonCode: row.code })
      expect(inV2.body).to.include({ isValid: false, invalidReason: row.code })
    }),
  )

  rowsOf('Refused', 'Pending', 'IdempotencyConflict', 'ChainUnavailable', 'JournalUnavailable').forEach((row) =>
    it(`settle: ${label(row)}`, () => {
      const c = row.case
      const result = c._tag === 'ChainUnavailable' || c._tag === 'JournalUnavailable' ? E.left(c) : E.right(c)
      const [inSpec, inV2] = [answerSettle(result, spec, settings), answerSettle(result, v2, settings)]
      for (const answer of [inSpec, inV2]) expect(carried(answer)).to.deep.equal(expected(row))
      expect(inSpec.body).to.include({ success: false, errorCode: row.code })
      expect(inV2.body).to.include({ success: false, errorReason: row.code })
    }),
  )

  rowsOf('MalformedRequest').forEach((row) =>
    it(`a body that does not decode: ${label(row)}`, () => {
      for (const wording of [spec, v2]) {
        for (const endpoint of ['verify', 'settle'] as const) {
          expect(carried(answerMalformed(endpoint, row.case, wording, settings))).to.deep.equal(expected(row))
        }
      }
      expect(answerMalformed('verify', row.case, spec, settings).body).to.include({ reasonCode: row.code })
      expect(answerMalformed('settle', row.case, spec, settings).body).to.include({ errorCode: row.code })
      expect(answerMalformed('verify', row.case, v2, settings).body).to.include({ invalidReason: row.code })
      expect(answerMalformed('settle', row.case, v2, settings).body).to.include({ errorReason: row.code })
    }),
  )

  it('a passed verify: 200, no reason code, no headers', () => {
    for (const wording of [spec, v2]) {
      expect(carried(answerVerify(E.right(valid), wording, settings))).to.deep.equal(expected(reportRows.Valid[0]!))
    }
  })

  it('settled: 200; a replay also says Idempotency-Replayed', () => {
    for (const wording of [spec, v2]) {
      for (const row of reportRows.Settled) {
        const answer = answerSettle(E.right(row.case), wording, settings)
        expect(carried(answer)).to.deep.equal(expected(row))
        expect(answer.body).to.include({ success: true })
      }
    }
    expect(reportRows.Settled.map((row) => row.case.replayed)).to.deep.equal([false, true])
    expect(answerSettle(E.right(settled(true)), spec, settings).body).to.include({ replayed: true })
  })
})

describe('answer map: every report → status, headers (reason code of the one not a success)', () => {
  Object.values(reportRows)
    .flat()
    .forEach((row, i) =>
      it(`${label(row)} #${i}`, () => {
        expect(carried(reportTerms(row.case))).to.deep.equal(expected(row))
        const answer = reportAnswer(row.case, { asked: 'for' })
        expect(carried(answer)).to.deep.equal(expected(row))
        expect(answer.body).to.deep.equal({ asked: 'for' })
      }),
    )
})
