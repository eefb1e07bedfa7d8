import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pino } from 'pino'
import type { ReceiptAttestor } from '@x402-facilitator/domain'
import { postJson, specBody, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

/** The payment moved: a receipt that cannot be signed never turns its success into a 5xx (docs/ARCHITECTURE.md §4). */
describe('HTTP: a settle success whose receipt cannot be signed is still answered success, without a receipt', () => {
  let app: TestApp
  const logged: string[] = []
  before(async () => {
    const attestor: ReceiptAttestor = {
      current: `0x${'cc'.repeat(20)}`,
      retired: [],
      attest: () => {
        throw new Error('signer broken')
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
          replayed: false,
        }),
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
      attestor,
      logger: pino({ level: 'error' }, { write: (line: string) => logged.push(line) }),
    })
  })
  after(() => app.close())

  it('both dialects: 200 success, no receipt, and the failure logged', async () => {
    const spec = await postJson(`${app.base}/api/facilitator/settle`, specBody())
    expect(spec.status).to.equal(200)
    expect(await spec.json())
      .to.include({ success: true })
      .and.not.have.property('receipt')
    const v2 = await postJson(`${app.base}/api/facilitator/settle`, v2Body())
    expect(v2.status).to.equal(200)
    expect(await v2.json())
      .to.include({ success: true })
      .and.not.have.property('extensions')
    expect(logged.join('')).to.include('receipt not signed').and.include('signer broken')
  })
})
