import { expect } from 'chai'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const root = (f: TestFacilitator) => f.base.replace(/\/api\/facilitator$/, '')

describe('operations: probes, metrics and headers (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    // Blocks come only with transactions: a settled row stays `confirmed` (counted by facilitator_settlements) here.
    f = await startTestFacilitator({ RPC_TIMEOUT_MS: '1000', PROBE_REFRESH_MS: '200', CONFIRMATIONS: '5' })
  })
  after(() => f?.stop())
  afterEach(() => {
    try {
      f.chain.resume()
    } catch {
      // running
    }
  })

  it('/healthz answers while the process lives', async () => {
    const res = await fetch(`${root(f)}/healthz`)
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ status: 'ok' })
  })

  it('/readyz: ready; 503 naming the chain while it is paused; ready again after', async () => {
    const ready = await fetch(`${root(f)}/readyz`)
    expect(ready.status).to.equal(200)
    const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean }> }
    expect(body.status).to.equal('ready')
    expect(Object.keys(body.checks).sort()).to.deep.equal([
      'chain',
      'database',
      'gasBalance',
      'migrations',
      'orphanedKeys',
      'replicaLock',
    ])

    // The probe reads a snapshot refreshed in the background: the pause shows at its next refresh.
    await f.chain.pause()
    const failing = await waitFor('/readyz naming the chain', async () => {
      const paused = await fetch(`${root(f)}/readyz`)
      const answer = (await paused.json()) as { failing?: string[] }
      return paused.status === 503 && answer.failing?.includes('chain') ? answer.failing : undefined
    })
    expect(failing).to.not.include('database')

    f.chain.resume()
    await waitFor('/readyz ready again', async () =>
      (await fetch(`${root(f)}/readyz`)).status === 200 ? true : undefined,
    )
  })

  it('/metrics shows what a verify and a settle did', async () => {
    const counter = (text: string, name: string) =>
      Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
    const before = await (await fetch(`${root(f)}/metrics`)).text()
    const body = await f.payment()
    expect((await f.post('verify', body)).body).to.include({ valid: true })
    expect((await f.post('settle', body)).body).to.include({ success: true })
    const res = await fetch(`${root(f)}/metrics`)
    expect(res.headers.get('content-type')).to.match(/^text\/plain/)
    // The row counts come from a snapshot refreshed in the background: wait for one taken after the settle.
    const text = await waitFor('the snapshot counting the settlement', async () => {
      const scraped = await (await fetch(`${root(f)}/metrics`)).text()
      return /facilitator_settlements\{state="confirmed"\} [1-9]/.test(scraped) ? scraped : undefined
    })
    expect(text).to.match(
      /facilitator_http_requests_total\{route="\/api\/facilitator\/verify",method="POST",status="200",reason_code=""\} [1-9]/,
    )
    expect(text).to.match(
      /facilitator_http_requests_total\{route="\/api\/facilitator\/settle",method="POST",status="200",reason_code=""\} [1-9]/,
    )
    expect(text).to.match(/facilitator_http_request_duration_seconds_count\{route="\/api\/facilitator\/settle"\} [1-9]/)
    expect(text).to.match(
      /facilitator_chain_call_duration_seconds_count\{network="[^"]+",call="trialPayment",outcome="success"\} [1-9]/,
    )
    expect(text).to.match(
      /facilitator_chain_call_duration_seconds_count\{network="[^"]+",call="send",outcome="success"\} [1-9]/,
    )
    expect(text).to.match(
      /facilitator_journal_call_duration_seconds_count\{network="[^"]+",call="claim",outcome="success"\} [1-9]/,
    )
    expect(text).to.match(
      /facilitator_journal_call_duration_seconds_count\{network="[^"]+",call="markMined",outcome="success"\} [1-9]/,
    )
    expect(text).to.match(/facilitator_settlements\{state="confirmed"\} [1-9]/)
    // docs/ARCHITECTURE.md §5.2: the settle's own receipt took its success mark in the same statement.
    const marks = (scraped: string) =>
      Number(
        /^facilitator_journal_call_duration_seconds_count\{network="[^"]+",call="markSuccessAnswered",outcome="success"\} (\d+)$/m.exec(
          scraped,
        )?.[1] ?? 0,
      )
    expect(marks(text) - marks(before)).to.equal(0)
    // A lone settle: claim, attempt, receipt; nothing to share a statement with.
    expect(
      counter(text, 'facilitator_journal_statements_total') - counter(before, 'facilitator_journal_statements_total'),
    ).to.be.at.least(3)
    expect(
      counter(text, `facilitator_rpc_requests_total{network="eip155:${f.chain.chainId}"}`) -
        counter(before, `facilitator_rpc_requests_total{network="eip155:${f.chain.chainId}"}`),
    ).to.be.at.least(3)
    // No series is labelled with the node's URL (it may carry a provider's key), also for the requests made before
    // the node told its chain id.
    expect(text).to.not.match(/\{[^}]*"https?:\/\//)
    expect(text).to.not.include(new URL(f.chain.rpcUrl).host)
    expect(text).to.match(/facilitator_gas_balance_wei{network="[^"]+",account="0x[0-9a-f]{40}"} [1-9]/)
    expect(text).to.match(/facilitator_pending_transactions{network="[^"]+",account="0x[0-9a-f]{40}"} 0/)
    expect(text).to.match(/process_cpu_user_seconds_total/)
    expect(text).to.match(/nodejs_eventloop_lag_seconds/)
  })

  it('a rule failure is counted with its reason code', async () => {
    const body = await f.payment()
    body.paymentRequirements.payTo = `0x${'56'.repeat(20)}`
    await f.post('verify', body)
    const text = await (await fetch(`${root(f)}/metrics`)).text()
    expect(text).to.match(/reason_code="invalid_exact_evm_payload_recipient_mismatch"\} 1/)
  })

  it('security headers on every answer; no CORS unless configured', async () => {
    for (const path of ['/api/facilitator/supported', '/healthz', '/nowhere']) {
      const res = await fetch(`${root(f)}${path}`, { headers: { origin: 'https://evil.example' } })
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff')
      expect(res.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN')
      expect(res.headers.get('access-control-allow-origin'), path).to.equal(null)
    }
  })
})

describe('operations: API keys, rate limits and CORS when configured (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({
      API_KEYS: 'key-one, key-two, key-four, key-five',
      OPERATOR_TOKEN: 'operator-token-0123456789abcdef-0123',
      RATE_LIMIT: '3',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      CORS_ORIGINS: 'https://shop.example',
    })
  })
  after(() => f?.stop())
  const auth = (key: string) => ({ authorization: `Bearer ${key}` })

  it('verify, settle and the lookups need a key (401 otherwise); supported, probes and the OpenAPI document stay open', async () => {
    const body = await f.payment()
    const none = await f.post('verify', body)
    expect(none.status).to.equal(401)
    expect(none.headers.get('www-authenticate')).to.equal('Bearer')
    expect(none.body).to.include({ valid: false, reasonCode: 'unauthorized' })
    expect((await f.post('settle', body, auth('key-three'))).status).to.equal(401)
    expect((await fetch(`${f.base}/settlements/0x${'00'.repeat(32)}`)).status).to.equal(401)
    expect((await fetch(`${f.base}/settlements/0x${'00'.repeat(32)}`, { headers: auth('key-two') })).status).to.equal(
      404,
    )
    const root = f.base.replace(/\/api\/facilitator$/, '')
    for (const open of [`${f.base}/supported`, `${root}/healthz`, `${root}/readyz`, `${root}/openapi.json`]) {
      expect((await fetch(open)).status, open).to.equal(200)
    }
    expect((await f.post('verify', body, auth('key-one'))).body).to.include({ valid: true })
  })

  it('past the limit a key gets 429 with Retry-After; another key is counted apart', async () => {
    const body = await f.payment({ payer: 1 })
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await f.post('verify', body, auth('key-two'))).status)
    // key-two made one lookup above: lookups count against the same limit as verify and settle.
    expect(statuses).to.deep.equal([200, 200, 429, 429])
    const limited = await f.post('verify', body, auth('key-two'))
    expect(limited.status).to.equal(429)
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60)
    expect(limited.body).to.include({ reasonCode: 'rate_limited' })
    expect((await f.post('verify', body, auth('key-one'))).status).to.equal(200)
  })

  it("a key reads the settlements it asked for; another key's are not found", async () => {
    const body = await f.payment({ payer: 2 })
    const settled = await f.post('settle', body, auth('key-four'))
    expect(settled.body).to.include({ success: true })
    const { from, nonce } = body.paymentPayload.payload.authorization
    const byHash = `${f.base}/settlements/${String(settled.body.txHash)}`
    const byAuthorization = `${f.base}/settlements?payer=${from}&nonce=${nonce}`
    for (const url of [byHash, byAuthorization]) {
      expect((await fetch(url, { headers: auth('key-four') })).status, url).to.equal(200)
      const other = await fetch(url, { headers: auth('key-five') })
      expect(other.status, url).to.equal(404)
      expect(JSON.stringify(await other.json())).to.not.include(String(settled.body.txHash))
    }
  })

  it("the operator's route counts against the rate limit: guessing its token is slowed like any other call", async () => {
    const guess = { authorization: `Bearer ${'x'.repeat(40)}` }
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${f.base}/operator/deliveries`, { headers: guess })).status)
    expect(statuses).to.deep.equal([401, 401, 401, 429])
  })

  it('CORS answers the configured origin only', async () => {
    const allowed = await fetch(`${f.base}/supported`, { headers: { origin: 'https://shop.example' } })
    expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://shop.example')
    const other = await fetch(`${f.base}/supported`, { headers: { origin: 'https://evil.example' } })
    expect(other.headers.get('access-control-allow-origin')).to.equal(null)
  })
})
