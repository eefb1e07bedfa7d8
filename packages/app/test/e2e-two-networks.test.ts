import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { privateKeyToAccount } from 'viem/accounts'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { anvilRpc, chainBackToNormal } from './support/chain-control.js'
import { canonicalReceipt, reorgTo, snapshot } from './support/reorg.js'
import { waitFor } from './support/wait-for.js'
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
    t = await startTwoNetworks({ RPC_TIMEOUT_MS: '1000', RECEIPT_TIMEOUT_SECONDS: '5' }, { alpha: 1, beta: 1 })
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

  it('a network served by none, or a token its network does not serve, is refused by the rules, naming what is', async () => {
    const [alpha, beta] = t.routes
    const gamma = (await t.payment(alpha!)) as { paymentPayload: object; paymentRequirements: object }
    const onGamma = {
      paymentPayload: { ...gamma.paymentPayload, network: 'gamma' },
      paymentRequirements: { ...gamma.paymentRequirements, network: 'gamma' },
    }
    const unserved = await t.post('verify', onGamma)
    expect(unserved.body).to.include({ valid: false, reasonCode: 'invalid_network' })
    expect(unserved.body.invalidReason).to.include('"alpha", "beta"')
    // Beta's EURC-like token named on alpha: alpha's route refuses it as not its token.
    const wrongToken = await t.payment({
      ...alpha!,
      domain: { ...beta!.domain, verifyingContract: t.routes[2]!.token },
    })
    const refused = await t.post('verify', wrongToken)
    expect(refused.body).to.include({ valid: false, reasonCode: 'invalid_payment_requirements' })
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

  it("a reorg on one network is followed there, and the other network's rows are never touched", async () => {
    const [alpha, beta] = t.routes
    const rowOf = async (txHash: unknown) =>
      (await t.db.knex('settlements').where({ tx_hash: txHash }).first()) as Record<string, unknown> | undefined
    const beforeBeta = await snapshot(t.beta.rpcUrl)
    const onAlpha = await t.post('settle', await t.payment(alpha!, { payer: 1 }))
    const onBeta = await t.post('settle', await t.payment(beta!, { payer: 1 }))
    expect([onAlpha.body.success, onBeta.body.success]).to.deep.equal([true, true])
    const alphaRow = await rowOf(onAlpha.body.txHash)
    const betaRow = await rowOf(onBeta.body.txHash)

    await reorgTo(t.beta.rpcUrl, beforeBeta)
    expect(await canonicalReceipt(t.beta.rpcUrl, String(onBeta.body.txHash))).to.equal(undefined)
    // Beta's payment is back on beta's chain, journalled with its new block.
    await waitFor(
      "beta's settlement back on its chain",
      async () => {
        const row = await t.db
          .knex('settlements')
          .where({ payer: betaRow!.payer, nonce: betaRow!.nonce, network: 'beta' })
          .first()
        const receipt = row && (await canonicalReceipt(t.beta.rpcUrl, String(row.tx_hash)))
        return receipt?.status === '0x1' && receipt.blockHash === row.block_hash ? true : undefined
      },
      30_000,
    )
    // Alpha's row: the same transaction in the same block, never sent back by beta's reorg.
    const alphaNow = await rowOf(onAlpha.body.txHash)
    expect(alphaNow).to.include({ block_hash: alphaRow!.block_hash, reorged_at: null })
    expect((await canonicalReceipt(t.alpha.rpcUrl, String(onAlpha.body.txHash)))?.blockHash).to.equal(
      alphaRow!.block_hash,
    )
  })

  it('the official client (@x402/core HTTPFacilitatorClient) lists both networks and settles on each', async () => {
    const facilitator = new HTTPFacilitatorClient({ url: t.base })
    const supported = await facilitator.getSupported()
    expect(supported.kinds.map((kind) => kind.network)).to.deep.equal(['eip155:31337', 'eip155:31338'])
    const [beta] = supported.kinds.filter((kind) => kind.network === 'eip155:31338')
    const assets = (beta!.extra as { assets: Array<{ address: string }> }).assets.map((a) => a.address.toLowerCase())
    expect(assets).to.deep.equal([t.beta.tokenAddress, t.beta.moreTokens[0]!.address])
    for (const route of t.routes) {
      const network = `eip155:${route.chain.chainId}` as `${string}:${string}`
      const accepted = {
        scheme: 'exact',
        network,
        amount: '1000',
        asset: route.token,
        payTo: PAYEE_OF_TWO,
        maxTimeoutSeconds: 60,
        extra: { name: route.domain.name, version: route.domain.version },
      }
      const client = new x402Client()
        .register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(t.alpha.payers[2]!.privateKey))))
        .setSpendControls({ allowedAssets: [{ network, asset: route.token }] })
      const payload = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: 'https://api.example/paid' },
        accepts: [accepted],
      })
      const settled = await facilitator.settle(payload, accepted)
      expect(settled, `${route.network} ${route.token}`).to.include({ success: true, network })
      expect(await receiptStatus(route.chain.rpcUrl, settled.transaction)).to.equal('0x1')
    }
  })
})
