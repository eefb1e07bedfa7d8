import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import type { Address, Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { anvilRpc, chainBackToNormal } from './support/chain-control.js'
import { getJson } from './support/json-client.js'
import { PAYEE_OF_TWO, startTwoNetworks, type TwoNetworks, type TwoNetworksRoute } from './support/two-networks.js'

const balanceOf = async (route: TwoNetworksRoute, owner: Address): Promise<bigint> => {
  const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: route.chain.rpcUrl }), route.token)
  const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`)()
  if (E.isLeft(state)) throw new Error(`balance of ${owner}: ${state.left.reason}`)
  return state.right.balance
}

const receiptStatus = async (rpcUrl: string, txHash: unknown): Promise<string | null> => {
  const receipt = (await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [txHash])) as { status: string } | null
  return receipt?.status ?? null
}

const freshNonce = (): Hex => `0x${randomBytes(32).toString('hex')}`

describe('many networks and tokens from one service: two anvils, three tokens, one key (app, Postgres)', function () {
  this.timeout(180_000)
  let t: TwoNetworks
  before(async () => {
    t = await startTwoNetworks({ RPC_TIMEOUT_MS: '1000', RECEIPT_TIMEOUT_SECONDS: '5' })
  })
  after(() => t?.stop())

  it('concurrent settles on both networks and every token: each paid once on its own chain, journalled with it', async () => {
    const before = await Promise.all(t.routes.map((route) => balanceOf(route, PAYEE_OF_TWO)))
    const payments = t.routes.flatMap((route) => [0, 1, 2].map((payer) => ({ route, payer })))
    const bodies = await Promise.all(payments.map(({ route, payer }) => t.payment(route, { payer })))
    const answers = await Promise.all(bodies.map((body) => t.post('settle', body)))
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200)
      expect(answer.body.success).to.equal(true)
      // Mined on its own network's chain, unknown to the other's.
      const { route } = payments[i]!
      const other = route.chain === t.alpha ? t.beta : t.alpha
      expect(await receiptStatus(route.chain.rpcUrl, answer.body.txHash)).to.equal('0x1')
      expect(await receiptStatus(other.rpcUrl, answer.body.txHash)).to.equal(null)
    }
    const after = await Promise.all(t.routes.map((route) => balanceOf(route, PAYEE_OF_TWO)))
    t.routes.forEach((_, i) => expect(after[i]! - before[i]!).to.equal(3n * 1_000_000n))
    const rows = (await t.db
      .knex('settlements')
      .select('network', 'chain_id', 'asset')
      .count({ rows: '*' })
      .groupBy('network', 'chain_id', 'asset')
      .orderBy(['chain_id', 'asset'])) as Array<{ network: string; chain_id: string; asset: string; rows: string }>
    expect(rows.map((r) => [r.network, r.chain_id, r.asset, Number(r.rows)])).to.have.deep.members(
      t.routes.map((route) => [route.network, `eip155:${route.chain.chainId}`, route.token.toLowerCase(), 3]),
    )
  })

  it('the same payer and nonce on two networks are two payments; on one network, one', async () => {
    const nonce = freshNonce()
    const [alpha, beta] = t.routes
    const onAlpha = await t.payment(alpha!, { nonce })
    const onBeta = await t.payment(beta!, { nonce })
    const first = await t.post('settle', onAlpha)
    const second = await t.post('settle', onBeta)
    expect([first.body.success, second.body.success]).to.deep.equal([true, true])
    expect(first.body.txHash).not.to.equal(second.body.txHash)
    // Again on alpha: the one payment there, answered as it was, nothing sent.
    const again = await t.post('settle', onAlpha)
    expect(again.body.txHash).to.equal(first.body.txHash)
    const payer = t.alpha.payers[0]!.address
    const ambiguous = await getJson(`${t.base}/settlements?payer=${payer}&nonce=${nonce}`)
    expect(ambiguous.status).to.equal(409)
    const matches = ambiguous.body.matches as Array<{ network: string }>
    expect(matches.map((m) => m.network)).to.have.members(['alpha', 'beta'])
    const named = await getJson(`${t.base}/settlements?payer=${payer}&nonce=${nonce}&network=eip155:31338`)
    expect([named.status, named.body.network]).to.deep.equal([200, 'beta'])
  })

  it("a network whose node is down answers 503 for its payments only; the other's keep settling", async () => {
    const [alpha, beta] = t.routes
    await t.beta.pause()
    try {
      const down = await t.post('settle', await t.payment(beta!))
      expect(down.status, JSON.stringify(down.body)).to.equal(503)
      const up = await t.post('settle', await t.payment(alpha!))
      expect([up.status, up.body.success]).to.deep.equal([200, true])
    } finally {
      await chainBackToNormal(t.beta)
    }
    const back = await t.post('settle', await t.payment(beta!))
    expect([back.status, back.body.success]).to.deep.equal([200, true])
  })
})
