import { expect } from 'chai'
import { connect } from 'node:net'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { anvilRpc, hasPendingTransaction, isSettled } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'

describe('slow clients, malformed bursts and clients that hang up change nothing (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' })
  })
  after(() => f?.stop())

  it('a slow-loris client is cut off, and other clients are served meanwhile', async () => {
    const { hostname, port } = new URL(f.base)
    const socket = connect(Number(port), hostname)
    const closed = new Promise<string>((resolve) => {
      let received = ''
      socket.on('data', (chunk) => (received += chunk.toString()))
      socket.on('close', () => resolve(received))
    })
    socket.write('POST /api/facilitator/verify HTTP/1.1\r\nHost: x\r\n')
    const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 200)
    try {
      const served = await f.post('verify', await f.payment())
      expect(served.body).to.include({ valid: true })
      const answer = await closed
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).to.equal(true)
    } finally {
      clearInterval(drip)
      socket.destroy()
    }
  })

  it('1,000 malformed requests, 100 at a time: each a 400, no record, and the service settles right after', async () => {
    const malformed = [
      '{',
      '[]',
      '{"paymentPayload":1}',
      JSON.stringify({ paymentPayload: { x402Version: 'x' } }),
      'null',
    ]
    // In waves of 100 at once: 1,000 sockets at once on a busy machine outlast this app's 2-second REQUEST_TIMEOUT_MS
    // (set for the slow-loris test), and Node answers those 408 with no body.
    const answers = []
    for (let wave = 0; wave < 1000; wave += 100)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, k) => {
            const i = wave + k
            return f.post(i % 2 ? 'settle' : 'verify', malformed[i % malformed.length]!)
          }),
        )),
      )
    expect(new Set(answers.map((a) => a.status))).to.deep.equal(new Set([400]))
    expect(await f.rows()).to.have.length(0)
    expect((await f.post('settle', await f.payment())).body).to.include({ success: true })
  })

  it('a client that disconnects mid-settle: the settlement completes once, and a retry learns its transaction', async () => {
    const payer = f.chain.payers[1]!.address
    const before = await f.balanceOf(payer)
    const body = await f.payment({ payer: 1 })
    // Blocks wait for evm_mine: the settle is still waiting for its receipt when the client hangs up.
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    try {
      const abort = new AbortController()
      const hungUp = fetch(`${f.base}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: abort.signal,
      }).catch((error: Error) => error.name)
      await waitFor('the transfer broadcast', async () =>
        (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
      )
      abort.abort()
      expect(await hungUp).to.equal('AbortError')
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    } finally {
      await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    }
    const row = await waitFor('the settlement confirmed', async () =>
      (await f.rows()).find((r) => r.payer === payer && isSettled(r.state)),
    )
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
    const retry = await f.post('settle', body)
    expect(retry.body).to.include({ success: false, errorCode: 'authorization_already_used', txHash: row.tx_hash })
  })
})
