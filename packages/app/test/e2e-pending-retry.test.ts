import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { anvilRpc, SETTLED_STATES } from './support/chain-control.js'
import {
  exactRequirements,
  minePendingTransfer,
  officialPayment,
  resourceServerMiningOnPending,
} from './support/official-resource-server.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/**
 * Issue 23 item 15: `@x402/core`'s `x402ResourceServer` retries `settle` once, at once, with the same payload and no
 * Idempotency-Key, after a 202 `settlement_pending` that names a transaction. That retry is the caller's one success;
 * anyone else, and any later call, is refused (docs/ARCHITECTURE.md §5.2).
 */
describe('the official resource server retries a settlement_pending settle: exactly one success (real app, anvil)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  const KEY_A = 'resource-server-a'
  const KEY_B = 'resource-server-b'
  before(async () => {
    // Recovery far away: only the retry learns of the receipt. RECEIPT_TIMEOUT_SECONDS bounds the first settle's wait
    // (the client signs validBefore = now + maxTimeoutSeconds, so that one stays long).
    f = await startTestFacilitator({
      API_KEYS: `${KEY_A},${KEY_B}`,
      RECOVERY_INTERVAL_MS: '600000',
      RECEIPT_TIMEOUT_SECONDS: '2',
    })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  const requirements = () => exactRequirements(f)
  const pay = (payer: number) => officialPayment(f, payer)
  const clientWith = (key: string) =>
    new HTTPFacilitatorClient({
      url: f.base,
      createAuthHeaders: async () => ({
        verify: { Authorization: `Bearer ${key}` },
        settle: { Authorization: `Bearer ${key}` },
        supported: {},
      }),
    })
  const mine = () => minePendingTransfer(f)
  const rowOf = async (txHash: string) => (await f.rows()).find((r) => r.tx_hash === txHash)
  const attemptsOf = async (id: unknown) => f.db.knex('settlement_attempts').where({ settlement_id: id })

  it('202 pending, the block arrives, the automatic retry: success with that transaction; one transfer; later calls refused', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const official = clientWith(KEY_A)
    const { server, answers } = await resourceServerMiningOnPending(f, official)
    const payload = await pay(0)

    const settled = await server.settlePayment(payload, requirements())

    expect(answers.map((a) => a.success)).to.deep.equal([false, true])
    expect(answers[0]).to.include({ errorReason: 'settlement_pending' })
    expect(settled).to.include({ success: true, transaction: answers[0]!.transaction, payer })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
    const row = await rowOf(settled.transaction)
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
    expect(await attemptsOf(row?.id)).to.have.length(1)

    const third = await official.settle(payload, requirements())
    expect(third).to.include({
      success: false,
      errorReason: 'authorization_already_used',
      transaction: settled.transaction,
    })
    const otherCaller = await clientWith(KEY_B).settle(payload, requirements())
    expect(otherCaller).to.include({
      success: false,
      errorReason: 'authorization_already_used',
      transaction: settled.transaction,
    })
    expect(await f.balanceOf(payer)).to.equal(before - 1_000_000n)
  })

  it("another API key's copy of the retry is refused, whichever comes first; the caller's own retry still succeeds", async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payload = await pay(1)
    const first = await clientWith(KEY_A).settle(payload, requirements())
    expect(first).to.include({ success: false, errorReason: 'settlement_pending' })
    await mine()
    const copied = await clientWith(KEY_B).settle(payload, requirements())
    expect(copied).to.include({
      success: false,
      errorReason: 'authorization_already_used',
      transaction: first.transaction,
    })
    const retry = await clientWith(KEY_A).settle(payload, requirements())
    expect(retry).to.include({ success: true, transaction: first.transaction })
  })

  it('two retries at once, each to its own connection: exactly one success, the other refused', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payload = await pay(2)
    const first = await clientWith(KEY_A).settle(payload, requirements())
    expect(first).to.include({ success: false, errorReason: 'settlement_pending' })
    await mine()
    const retries = await Promise.all([
      clientWith(KEY_A).settle(payload, requirements()),
      clientWith(KEY_A).settle(payload, requirements()),
    ])
    expect(retries.filter((r) => r.success)).to.have.length(1)
    expect(retries.find((r) => !r.success)).to.include({
      errorReason: 'authorization_already_used',
      transaction: first.transaction,
    })
    expect(retries.find((r) => r.success)).to.include({ transaction: first.transaction })
  })
})
