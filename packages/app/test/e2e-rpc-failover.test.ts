import { expect } from 'chai'
import { makeChainRpc, makeRpcTokenReader, startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import { startRpcProxy, type RpcProxy } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { Address, Bytes32 } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { signedPaymentBody } from '../src/demo-payment.js'
import type { RunningFacilitator } from '../src/start-facilitator.js'
import { postJson } from './support/json-client.js'
import { launch } from './support/start-up-harness.js'
import { PAYEE } from './support/test-facilitator.js'

/**
 * Issue 25's RPC failover through the real app: a network with two RPC URLs, the first a proxy in front of anvil that
 * takes the transaction, answers, and dies before its receipt. The settle goes on through the second URL: the bytes in
 * flight sent again there, the receipt read there, paid once.
 */
describe('RPC failover: the first URL dies between a broadcast and its receipt (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let chain: LocalChain
  let db: TestDatabase
  let proxy: RpcProxy
  let running: RunningFacilitator
  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    db = await createTestDatabase()
    // Every call passes; the first broadcast reaches the node, its answer comes back, and the URL dies before any
    // receipt is read through it.
    let broadcasts = 0
    proxy = await startRpcProxy(chain.rpcUrl, (call) =>
      call.method === 'eth_sendRawTransaction' && ++broadcasts === 1 ? 'forward, answer, then die' : undefined,
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
    running = await launch({
      NETWORKS: JSON.stringify(networks),
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: db.connectionString,
      ALLOW_OPEN: 'true',
      BATCHING: 'off',
      RPC_TIMEOUT_MS: '2000',
    })
  })
  after(async () => {
    await running?.stop()
    await proxy?.close()
    await db?.drop()
    await chain?.stop()
  })

  it('settles exactly once through the second URL', async () => {
    const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
    const stateOf = async (owner: Address, nonce: Bytes32 = `0x${'00'.repeat(32)}`) => {
      const state = await reader.payerState(owner, nonce)()
      if (E.isLeft(state)) throw new Error(state.left.reason)
      return state.right
    }
    const domain = await reader.domain()
    if (E.isLeft(domain)) throw new Error(domain.left.reason)
    const payer = chain.payers[0]!
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
    const rows = (await db.knex('settlements').select('state', 'tx_hash')) as Array<{ state: string; tx_hash: string }>
    expect(rows).to.have.length(1)
    expect(rows[0]).to.deep.include({ tx_hash: settled.body.txHash })
  })
})
