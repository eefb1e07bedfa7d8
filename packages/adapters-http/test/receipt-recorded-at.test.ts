import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ReceiptAttestor, ReceiptFacts } from '@x402-facilitator/domain'
import { postJson, specBody } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

/**
 * A settle's receipt names the time its payment's row was claimed, not the moment of the answer: a replay under the
 * same Idempotency-Key a second later signs what the first answer signed (docs/API.md, the receipt).
 */
describe('HTTP: a settle success signs the recorded time the domain names', () => {
  let app: TestApp
  const attested: ReceiptFacts[] = []
  const CLAIMED_AT = new Date('2026-01-02T03:04:05Z')
  before(async () => {
    const attestor: ReceiptAttestor = {
      current: `0x${'cc'.repeat(20)}`,
      retired: [],
      attest: (facts) => {
        attested.push(facts)
        return {
          domain: { name: 'test', version: '1', chainId: 1 },
          types: {},
          primaryType: 'R',
          message: {},
          signature: '0x',
        }
      },
    }
    app = await startTestApp({
      verifyPayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      settlePayment: () =>
        TE.right({
          _tag: 'Settled',
          payer: `0x${'11'.repeat(20)}`,
          txHash: `0x${'ee'.repeat(32)}`,
          blockNumber: 7n,
          replayed: true,
          recordedAt: CLAIMED_AT,
        }),
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
      attestor,
    })
  })
  after(() => app.close())

  it("the receipt's recordedAt is the outcome's, whenever the answer is made", async () => {
    const answer = await postJson(`${app.base}/api/facilitator/settle`, specBody())
    expect(answer.status).to.equal(200)
    expect(attested.map((facts) => facts.recordedAt)).to.deep.equal([CLAIMED_AT])
  })
})
