import { makeTestClock, type TestClock } from '@x402-facilitator/domain/test-clock'
import { expect } from 'chai'
import { verifyTypedData, type Hex } from 'viem'
import { anvilRpc } from './support/chain-control.js'
import { reorgTo, snapshot } from './support/reorg.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'
import { startWebhookReceiver, verifiesWith, type WebhookReceiver } from './support/webhook-receiver.js'

const SECRET_A = 'whsec-a-0123456789abcdef'
const SECRET_B_OLD = 'whsec-b-old-0123456789abcdef'
const SECRET_B_NEW = 'whsec-b-new-0123456789abcdef'
const RETRY_BASE_MS = 60_000
const CALLER_KEY = 'caller-key-0123456789abcdef'
const OPERATOR_TOKEN = 'operator-token-0123456789abcdef-0123'

const verifies = (receipt: Record<string, unknown>, address: Hex) =>
  verifyTypedData({ ...(receipt as unknown as Parameters<typeof verifyTypedData>[0]), address }).catch(() => false)

/** docs/ARCHITECTURE.md §5.9: settlement events reach webhooks signed, in order, at least once (real app). */
describe('settlement events (webhooks), real app on anvil and Postgres', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  let a: WebhookReceiver
  let b: WebhookReceiver
  let clock: TestClock
  before(async () => {
    a = await startWebhookReceiver()
    b = await startWebhookReceiver()
    clock = makeTestClock(new Date())
    const webhooks = [
      { url: a.url, secrets: [SECRET_A] },
      { url: b.url, secrets: [SECRET_B_NEW, SECRET_B_OLD], events: ['pending', 'confirmed', 'final'] },
    ]
    f = await startTestFacilitator(
      {
        CONFIRMATIONS: '2',
        RECOVERY_INTERVAL_MS: '500',
        WEBHOOKS: JSON.stringify(webhooks),
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        API_KEYS: CALLER_KEY,
        OPERATOR_TOKEN,
      },
      {},
      undefined,
      undefined,
      undefined,
      { webhookClock: clock },
    )
  })
  after(async () => {
    await f?.stop()
    await a?.close()
    await b?.close()
  })

  const settle = async (payer: number) => {
    const body = await f.payment({ payer, value: 10_000n + BigInt(payer) })
    const answer = await f.post('settle', body, { Authorization: `Bearer ${CALLER_KEY}` })
    expect(answer.status).to.equal(200)
    const row = (await f.rows()).find((r) => r.tx_hash === answer.body.txHash)!
    return String(row.id)
  }
  const kindsOf = (receiver: WebhookReceiver, settlementId: string) =>
    receiver
      .events()
      .filter((event) => event.settlement.id === settlementId)
      .map((event) => event.kind)
  const untilKinds = (receiver: WebhookReceiver, settlementId: string, count: number) =>
    waitFor(`${count} events of settlement ${settlementId}`, () => {
      const kinds = kindsOf(receiver, settlementId)
      return kinds.length >= count ? kinds : undefined
    })
  const mine = async (blocks: number) => {
    for (let i = 0; i < blocks; i++) await anvilRpc(f.chain.rpcUrl, 'evm_mine')
  }

  it('a settle: pending, confirmed, then final, each once and in order, signed with every current secret', async () => {
    const id = await settle(0)
    expect(await untilKinds(a, id, 2)).to.deep.equal(['pending', 'confirmed'])
    await mine(2)
    expect(await untilKinds(a, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    expect(await untilKinds(b, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    for (const event of a.events().filter((e) => e.settlement.id === id)) {
      expect(verifiesWith(event.signature, event.body, SECRET_A)).to.equal(true)
      expect(verifiesWith(event.signature, event.body.replace('"kind"', '"kind" '), SECRET_A)).to.equal(false)
    }
    for (const event of b.events().filter((e) => e.settlement.id === id)) {
      expect(verifiesWith(event.signature, event.body, SECRET_B_OLD)).to.equal(true)
      expect(verifiesWith(event.signature, event.body, SECRET_B_NEW)).to.equal(true)
      expect(verifiesWith(event.signature, event.body, SECRET_A)).to.equal(false)
    }
    const final = a.events().find((e) => e.settlement.id === id && e.kind === 'final')!
    expect(final.settlement).to.include({ state: 'final', payer: f.chain.payers[0]!.address.toLowerCase() })
  })

  it('confirmed and final events carry the receipt the lookup answers, signed by the published key', async () => {
    const { attestation } = (await (await fetch(`${f.base}/supported`)).json()) as { attestation: { current: Hex } }
    const id = await settle(0)
    await mine(2)
    expect(await untilKinds(a, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    const [pending, confirmed, final] = a.events().filter((e) => e.settlement.id === id)
    expect(pending!.receipt).to.equal(undefined)
    expect(confirmed!.receipt).to.have.nested.property('message.state', 'confirmed')
    expect(final!.receipt).to.have.nested.property('message.state', 'final')
    for (const { receipt } of [confirmed!, final!]) expect(await verifies(receipt!, attestation.current)).to.equal(true)
    const forged = { ...final!.receipt!, message: { ...(final!.receipt!.message as object), value: '1' } }
    expect(await verifies(forged, attestation.current)).to.equal(false)
    const lookup = await fetch(`${f.base}/settlements/${String(final!.settlement.transaction)}`, {
      headers: { Authorization: `Bearer ${CALLER_KEY}` },
    })
    const view = (await lookup.json()) as { receipt: unknown }
    expect(view.receipt, "the lookup's receipt of the final row").to.deep.equal(final!.receipt)
  })

  it('an endpoint down holds back no other; once it answers it gets everything, in order, freshly signed', async () => {
    b.answerAlways(503)
    const id = await settle(1)
    await mine(2)
    // The other endpoint is not held back.
    expect(await untilKinds(a, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    const pendingToB = () =>
      f.db
        .knex('webhook_deliveries')
        .where({ settlement_id: id, endpoint: b.url })
        .orderBy('event_seq')
        .select('state', 'attempts')
    await waitFor('the first attempt to b failed', async () => (await pendingToB())[0]?.attempts === 1)
    // Only its head is tried: the payment's later events wait for it.
    expect((await pendingToB()).map((d) => d.attempts)).to.deep.equal([1, 0, 0])
    clock.advance(RETRY_BASE_MS)
    await waitFor('the second attempt to b failed', async () => (await pendingToB())[0]?.attempts === 2)
    expect(b.requests.filter((e) => e.settlement.id === id)).to.deep.equal([])
    b.answerAlways(undefined)
    clock.advance(RETRY_BASE_MS)
    // Not yet due: the second retry waits twice the first.
    expect((await pendingToB())[0]).to.deep.equal({ state: 'pending', attempts: 2 })
    clock.advance(RETRY_BASE_MS)
    expect(await untilKinds(b, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    const head = b.events().find((e) => e.settlement.id === id && e.kind === 'pending')!
    expect(head.signedAt).to.be.at.least(Math.floor(clock.now().getTime() / 1000))
    expect(verifiesWith(head.signature, head.body, SECRET_B_NEW)).to.equal(true)
    await waitFor('every delivery to b recorded delivered', async () =>
      (await pendingToB()).every((d) => d.state === 'delivered'),
    )
  })

  it('a reorg: reorged, then settled_again, then final', async () => {
    const before = await snapshot(f.chain.rpcUrl)
    const id = await settle(2)
    expect(await untilKinds(a, id, 2)).to.deep.equal(['pending', 'confirmed'])
    await reorgTo(f.chain.rpcUrl, before)
    expect(await untilKinds(a, id, 4)).to.deep.equal(['pending', 'confirmed', 'reorged', 'settled_again'])
    await mine(2)
    expect(await untilKinds(a, id, 5)).to.deep.equal(['pending', 'confirmed', 'reorged', 'settled_again', 'final'])
    // b is subscribed to neither reorged nor settled_again.
    expect(await untilKinds(b, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
  })

  it("a delivery failing past WEBHOOK_DEAD_AFTER_HOURS is dead-lettered; the payment's next events go on", async () => {
    b.answerAlways(503)
    const id = await settle(0)
    await mine(2)
    expect(await untilKinds(a, id, 3)).to.deep.equal(['pending', 'confirmed', 'final'])
    const toB = () =>
      f.db
        .knex('webhook_deliveries')
        .where({ settlement_id: id, endpoint: b.url })
        .orderBy('event_seq')
        .select('state', 'attempts')
    await waitFor('the first attempt to b failed', async () => (await toB())[0]?.attempts === 1)
    // 73 hours on: the head's next try fails once more, its event older than 72 hours: dead.
    b.answerAlways(undefined)
    b.failNext(1, 503)
    clock.advance(73 * 3_600_000)
    await waitFor('the head dead-lettered', async () => (await toB())[0]?.state === 'dead')
    // The later events were never tried and are as old: each is tried once, delivered (b answers again).
    expect(await untilKinds(b, id, 2)).to.deep.equal(['confirmed', 'final'])
    const dead = await fetch(`${f.base}/operator/deliveries?state=dead&settlementId=${id}`, {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    })
    const { deliveries } = (await dead.json()) as { deliveries: Array<Record<string, unknown>> }
    expect(deliveries.map((d) => [d.kind, d.state, d.lastStatus])).to.deep.equal([['pending', 'dead', 503]])
    const metrics = await (await fetch(`${new URL(f.base).origin}/metrics`)).text()
    const label = `endpoint="${b.url}"`
    expect(metrics).to.include(`facilitator_webhook_dead_letters_total{${label}} 1`)
    expect(metrics).to.match(
      new RegExp(`facilitator_webhook_failures_total\\{${label.replace(/[.?/]/g, '\\$&')}\\} [1-9]`),
    )
  })

  it("the operator's look-up of deliveries: the operator token only, never a caller's API key", async () => {
    const deliveries = (query: string, token?: string) =>
      fetch(`${f.base}/operator/deliveries${query}`, {
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      })
    expect((await deliveries('')).status).to.equal(401)
    expect((await deliveries('', CALLER_KEY)).status).to.equal(401)
    const bad = await deliveries('?limit=0', OPERATOR_TOKEN)
    expect(bad.status).to.equal(400)
    expect(await bad.json()).to.include({ errorCode: 'invalid_query' })
    expect((await deliveries('?state=lost', OPERATOR_TOKEN)).status).to.equal(400)
    const answer = await deliveries(`?endpoint=${encodeURIComponent(b.url)}&state=delivered&limit=3`, OPERATOR_TOKEN)
    expect(answer.status).to.equal(200)
    const { deliveries: found } = (await answer.json()) as { deliveries: Array<Record<string, unknown>> }
    expect(found).to.have.length(3)
    for (const delivery of found) expect(delivery).to.include({ endpoint: b.url, state: 'delivered' })
    expect(JSON.stringify(found)).to.not.include('whsec')
  })
})
