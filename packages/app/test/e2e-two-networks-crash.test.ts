import { expect } from 'chai'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Bytes32 } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { settlesInFlight, spawnApp } from './support/app-process.js'
import { anvilRpc, chainBackToNormal, isSettled, receiptOf } from './support/chain-control.js'
import {
  PAYEE_OF_TWO,
  setUpTwoNetworks,
  twoNetworksPayment,
  type TwoNetworksRoute,
  type TwoNetworksSetUp,
} from './support/two-networks.js'
import { waitFor } from './support/wait-for.js'

const stateOf = async (route: TwoNetworksRoute, owner: Address, nonce: Bytes32) => {
  const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: route.chain.rpcUrl }), route.token)
  const state = await reader.payerState(owner, nonce)()
  if (E.isLeft(state)) throw new Error(`payer state of ${owner}: ${state.left.reason}`)
  return state.right
}

describe('a crash (SIGKILL) with settles in flight on two networks and three tokens, then a restart', function () {
  this.timeout(180_000)
  let setUp: TwoNetworksSetUp
  before(async () => {
    setUp = await setUpTwoNetworks()
  })
  after(() => setUp?.stop())

  it('every row finished on its own chain: used on-chain exactly when journalled settled, each paid once', async () => {
    const env = {
      ...setUp.settings,
      RECOVERY_INTERVAL_MS: '500',
      RECEIPT_TIMEOUT_SECONDS: '2',
      RPC_TIMEOUT_MS: '2000',
    }
    const payments = setUp.routes.flatMap((route) => [0, 1, 2, 0, 1, 2, 0, 1].map((payer) => ({ route, payer })))
    const bodies = await Promise.all(
      payments.map(({ route, payer }) => twoNetworksPayment(setUp, route, { payer, value: 10_000n })),
    )
    const before = await Promise.all(setUp.routes.map((route) => stateOf(route, PAYEE_OF_TWO, `0x${'00'.repeat(32)}`)))
    const first = await spawnApp(env)
    // Nothing is mined until the crash: the rows stay in flight (broadcast, not yet in a block) on both chains.
    for (const chain of [setUp.alpha, setUp.beta]) await anvilRpc(chain.rpcUrl, 'evm_setAutomine', [false])
    const inFlight = settlesInFlight(first.url, bodies)
    // Killed once transactions are broadcast on both chains.
    const inFlightOn = async () =>
      (await setUp.db.knex('settlements').where({ state: 'submitted' }).distinct('chain_id')).map(
        (r: { chain_id: string }) => r.chain_id,
      )
    await waitFor('rows in flight on both chains', async () => ((await inFlightOn()).length === 2 ? true : undefined))
    await first.kill('SIGKILL')
    expect(await Promise.all(inFlight)).to.include('connection lost')
    for (const chain of [setUp.alpha, setUp.beta]) await chainBackToNormal(chain)

    const second = await spawnApp(env)
    try {
      const rows = await waitFor(
        'every row finished',
        async () => {
          const all = (await setUp.db.knex('settlements').select('*')) as Array<Record<string, string>>
          return all.some((r) => r.state === 'claimed' || r.state === 'submitted') ? undefined : all
        },
        60_000,
        250,
      )
      const paid = new Map<TwoNetworksRoute, bigint>()
      for (const [i, body] of bodies.entries()) {
        const { route } = payments[i]!
        const { from, nonce } = body.paymentPayload.payload.authorization
        const used = (await stateOf(route, from, nonce as Bytes32)).authorizationUsed
        const row = rows.find(
          (r) => r.payer === from && r.nonce === nonce && r.network === route.network && r.asset === route.token,
        )
        const state = isSettled(row?.state) ? 'settled' : (row?.state ?? 'none')
        expect(state, `${route.network} ${route.token} ${from}/${nonce}`).to.equal(
          used ? 'settled' : row ? 'released' : 'none',
        )
        if (used) {
          // Its transaction is on its own network's chain.
          expect(row!.chain_id).to.equal(`eip155:${route.chain.chainId}`)
          expect((await receiptOf(route.chain.rpcUrl, row!.tx_hash!))?.status).to.equal('0x1')
          paid.set(route, (paid.get(route) ?? 0n) + 10_000n)
        }
      }
      // Each token moved exactly what its journal says was paid: nothing twice, nothing on the wrong chain.
      for (const [i, route] of setUp.routes.entries()) {
        const now = await stateOf(route, PAYEE_OF_TWO, `0x${'00'.repeat(32)}`)
        expect(now.balance - before[i]!.balance, `${route.network} ${route.token}`).to.equal(paid.get(route) ?? 0n)
      }
      // Rows were in flight on both chains: each finished some on its own.
      expect(new Set([...paid.keys()].map((route) => route.network))).to.have.length(2)
    } finally {
      await second.kill('SIGKILL')
    }
  })
})
