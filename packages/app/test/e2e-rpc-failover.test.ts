import { expect } from 'chai'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { startRpcProxy, startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Bytes32 } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { postJson } from './support/json-client.js'
import { launch } from './support/start-up-harness.js'
import { PAYEE } from './support/test-facilitator.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

/**
 * Issue 25's RPC failover through the real app: a network with two RPC URLs, the first a proxy in front of anvil that
 * takes the transaction and dies, before its receipt (and, second, before even its answer). The settle goes on through
 * the second URL: the bytes in flight sent again there, the receipt read there, success, paid once.
 */
describe('RPC failover: the first URL dies between a broadcast and its receipt (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let chain: LocalChain
  let db: TestDatabase
  before(async () => {
    chain = await startLocalChain({ payers: 2 })
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
    await chain?.stop()
  })

  /** The app on a network whose first URL is a proxy doing `first` to the first broadcast, the second anvil itself. */
  const startBehind = async (first: 'forward, answer, then die' | 'forward, then die') => {
    let broadcasts = 0
    const proxy = await startRpcProxy(chain.rpcUrl, (call) =>
      call.method === 'eth_sendRawTransaction' && ++broadcasts === 1 ? first : undefined,
    )
    const networks = [
      {
        name: 'local',
        caip2: `eip155:${chain.chainId}`,
        rpcUrls: [proxy.url, chain.rpcUrl],
        confirmations: 0,
        tokens: [{ address: chain.tokenAddress }],
      },
    ]
    const running = await launch({
      NETWORKS: JSON.stringify(networks),
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      ALLOW_OPEN: 'true',
      ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
      BATCHING: 'off',
      RPC_TIMEOUT_MS: '2000',
    })
    return { proxy, running }
  }

  const settleOnce = async (first: 'forward, answer, then die' | 'forward, then die', payerIndex: number) => {
    const { proxy, running } = await startBehind(first)
    try {
      const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
      const stateOf = async (owner: Address, nonce: Bytes32 = `0x${'00'.repeat(32)}`) => {
        const state = await reader.payerState(owner, nonce)()
        if (E.isLeft(state)) throw new Error(state.left.reason)
        return state.right
      }
      const domain = await reader.domain()
      if (E.isLeft(domain)) throw new Error(domain.left.reason)
      const payer = chain.payers[payerIndex]!
      const body = await signedPaymentBody({
        payerKey: payer.privateKey,
        payer: payer.address,
        payTo: PAYEE,
        value: 1_000_000n,
        network: 'local',
        domain: domain.right,
      })
      const before = await stateOf(PAYEE)
      const settled = await postJson(`${running.url}/api/facilitator/settle`, body)
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200)
      expect(settled.body.success).to.equal(true)
      // The first URL took the broadcast, and is gone.
      expect(proxy.calls.get('eth_sendRawTransaction')).to.equal(1)
      expect(
        await fetch(proxy.url, { method: 'POST' }).then(
          () => 'answers',
          () => 'refused',
        ),
      ).to.equal('refused')
      const { nonce } = body.paymentPayload.payload.authorization
      expect((await stateOf(payer.address, nonce as Bytes32)).authorizationUsed).to.equal(true)
      expect((await stateOf(PAYEE)).balance - before.balance).to.equal(1_000_000n)
      const rows = (await db.knex('settlements').where({ payer: payer.address })) as Array<{ tx_hash: string }>
      expect(rows.map((row) => row.tx_hash)).to.deep.equal([settled.body.txHash])
    } finally {
      await running.stop()
      await proxy.close()
    }
  }

  it('it answered the broadcast first: the receipt is read through the second URL, paid once', () =>
    settleOnce('forward, answer, then die', 0))

  it('its answer to the broadcast was lost: the same bytes go through the second URL (the node has them), paid once', () =>
    settleOnce('forward, then die', 1))
})
