import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc, hasPendingTransaction, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

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

  const caip2 = () => `eip155:${f.chain.chainId}` as `${string}:${string}`
  const requirements = (): PaymentRequirements => ({
    scheme: 'exact',
    network: caip2(),
    amount: '1000000',
    asset: f.chain.tokenAddress,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: f.domain.name, version: f.domain.version },
  })
  const pay = async (payer: number): Promise<PaymentPayload> =>
    new x402Client()
      .register(
        'eip155:*',
        new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))),
      )
      .setSpendControls({ allowedAssets: [{ network: caip2(), asset: f.chain.tokenAddress }] })
      .createPaymentPayload({
        x402Version: 2,
        resource: { url: 'https://api.example/paid' },
        accepts: [requirements()],
      })
  const clientWith = (key: string) =>
    new HTTPFacilitatorClient({
      url: f.base,
      createAuthHeaders: async () => ({
        verify: { Authorization: `Bearer ${key}` },
        settle: { Authorization: `Bearer ${key}` },
        supported: {},
      }),
    })
  /** Anvil does not mine on its own in these tests: the transfer waits in the pool until `mine`. */
  const mine = async () => {
    await waitFor('the transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
  }
  const rowOf = async (txHash: string) => (await f.rows()).find((r) => r.tx_hash === txHash)
  const attemptsOf = async (id: unknown) => f.db.knex('settlement_attempts').where({ settlement_id: id })

  it('202 pending, the block arrives, the automatic retry: success with that transaction; one transfer; later calls refused', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payer = f.chain.payers[0]!.address
    const before = await f.balanceOf(payer)
    const official = clientWith(KEY_A)
    const answers: SettleResponse[] = []
    // The official client as it is, seen from outside: each answer recorded; after the 202 the block arrives.
    const observed = {
      verify: official.verify.bind(official),
      getSupported: official.getSupported.bind(official),
      settle: async (payload: PaymentPayload, required: PaymentRequirements) => {
        const answer = await official.settle(payload, required)
        answers.push(answer)
        if (answer.errorReason === 'settlement_pending') await mine()
        return answer
      },
    }
    const server = new x402ResourceServer(observed)
    await server.initialize()
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
