import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { FamilyRequest } from '@x402-facilitator/domain'
import { PAYEE, PAYER, postJson, v2Body } from './support/bodies.js'
import { startTestApp, type TestApp } from './support/test-app.js'

const OTHER_PAYEE = `0x${'56'.repeat(20)}` as const

/** An x402 v2 `upto` body (Permit2), paying `payTo`. */
const uptoBody = (payTo: string) => {
  const body = v2Body()
  const accepted = { ...body.paymentPayload.accepted, scheme: 'upto', payTo }
  const permit2Authorization = {
    from: PAYER,
    permitted: { token: accepted.asset, amount: '1000000' },
    spender: '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002',
    nonce: '12345',
    deadline: '1900000000',
    witness: { to: payTo, facilitator: `0x${'77'.repeat(20)}`, validAfter: '0' },
  }
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted,
      payload: { signature: `0x${'11'.repeat(64)}1b`, permit2Authorization },
    },
    paymentRequirements: accepted,
  }
}

describe('HTTP: only API keys allowed for a payee may settle upto for it (whoever settles picks the amount)', () => {
  let app: TestApp
  let settled: FamilyRequest[] = []
  before(async () => {
    app = await startTestApp({
      apiKeys: ['key-one', 'key-two'],
      uptoPayees: new Map([['key-one', [PAYEE]]]),
      verifyPayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      settlePayment: (request) => {
        settled.push(request)
        return TE.right({ _tag: 'Waived', payer: PAYER, replayed: false })
      },
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
    })
  })
  beforeEach(() => {
    settled = []
  })
  after(() => app.close())

  const settle = (body: unknown, key: string) =>
    postJson(`${app.base}/api/facilitator/settle`, body, { authorization: `Bearer ${key}` })

  it('a key allowed for the payee settles; the answer carries amount 0 for a waived settle', async () => {
    const res = await settle(uptoBody(PAYEE), 'key-one')
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.include({ success: true, transaction: '', amount: '0' })
    expect(settled).to.have.length(1)
  })

  it('the same key for another payee, or a key with no payees: 403 upto_caller_not_allowed, nothing settled', async () => {
    for (const [body, key] of [
      [uptoBody(OTHER_PAYEE), 'key-one'],
      [uptoBody(PAYEE), 'key-two'],
    ] as const) {
      const res = await settle(body, key)
      expect(res.status).to.equal(403)
      const answer = (await res.json()) as Record<string, unknown>
      expect(answer).to.deep.include({ success: false, errorReason: 'upto_caller_not_allowed' })
      expect(answer.errorMessage).to.match(/may not settle upto payments for 0x/)
    }
    expect(settled).to.deep.equal([])
  })

  it('exact payments are not limited by the list', async () => {
    const res = await settle(v2Body(), 'key-two')
    expect(res.status).to.equal(200)
    expect(settled).to.have.length(1)
  })
})

describe('HTTP: without API keys, upto is settled only where the operator says so (ALLOW_OPEN_UPTO, dev mode)', () => {
  const start = (uptoWithoutKeys?: boolean) => {
    const settled: FamilyRequest[] = []
    const app = startTestApp({
      ...(uptoWithoutKeys === undefined ? {} : { uptoWithoutKeys }),
      verifyPayment: () => TE.left({ _tag: 'ChainUnavailable', reason: 'not under test' }),
      settlePayment: (request) => {
        settled.push(request)
        return TE.right({ _tag: 'Waived', payer: PAYER, replayed: false })
      },
      lookUpSettlement: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
    })
    return { app, settled }
  }

  it('unset: 403 upto_caller_not_allowed naming the setting, nothing settled; exact goes on', async () => {
    const { app: started, settled } = start()
    const app = await started
    try {
      const res = await postJson(`${app.base}/api/facilitator/settle`, uptoBody(PAYEE))
      expect(res.status).to.equal(403)
      const answer = (await res.json()) as Record<string, unknown>
      expect(answer).to.deep.include({ success: false, errorReason: 'upto_caller_not_allowed' })
      expect(answer.errorMessage).to.match(/ALLOW_OPEN_UPTO/)
      expect(settled).to.deep.equal([])
      expect((await postJson(`${app.base}/api/facilitator/settle`, v2Body())).status).to.equal(200)
    } finally {
      await app.close()
    }
  })

  it('allowed: anyone settles upto', async () => {
    const { app: started, settled } = start(true)
    const app = await started
    try {
      expect((await postJson(`${app.base}/api/facilitator/settle`, uptoBody(PAYEE))).status).to.equal(200)
      expect(settled).to.have.length(1)
    } finally {
      await app.close()
    }
  })
})
