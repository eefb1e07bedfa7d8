import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import type { RunningFacilitator } from '../src/start-facilitator.js'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { postJson } from './support/json-client.js'
import { waitFor } from './support/wait-for.js'
import { servingTwoPermit2Tokens, setUpPermit2Chain, type Permit2Chain } from './support/permit2-chain.js'
import { permit2NonceOf, resignedPermit2 } from './support/permit2-payer-actions.js'
import { launch } from './support/start-up-harness.js'
import { PAYEE } from './support/test-facilitator.js'

/**
 * One Permit2 nonce is one payment whatever token it names (Permit2's nonce bitmap is per owner, not per token): a
 * facilitator serving two Permit2 tokens on one network (DemoUsdt, and the chain's DemoUsd by either method) settles
 * one of two payloads signed with the same nonce, and refuses the other without a transaction.
 */
describe('e2e: one Permit2 nonce signed for two tokens', function () {
  this.timeout(180_000)
  let setUp: Permit2Chain
  let running: RunningFacilitator
  let url: string
  let demoUsd: Address
  before(async () => {
    setUp = await setUpPermit2Chain()
    demoUsd = setUp.chain.tokenAddress
    running = await launch(await servingTwoPermit2Tokens(setUp))
    url = `${running.url}/api/facilitator`
  })
  after(async () => {
    await running?.stop()
    await setUp?.stop()
  })

  /** Payer `payer`'s exact payload for DemoUsdt (the official client) and the same nonce's for DemoUsd (re-signed). */
  const twoPayloads = async (payer: number, amount: bigint) => {
    const usdt = setUp.requirements('exact', amount)
    const onUsdt = await setUp.pay(payer, usdt)
    const usd = { ...usdt, asset: demoUsd }
    const onUsd = await resignedPermit2(onUsdt, { token: demoUsd }, keyOf(payer), setUp.chain.chainId)
    return [setUp.body(onUsdt, usdt), setUp.body(onUsd, usd)] as const
  }
  const keyOf = (payer: number) => setUp.chain.payers[payer]!.privateKey
  const settle = (body: Record<string, unknown>) => postJson(`${url}/settle`, body)
  const moved = async (token: Address) => setUp.tokenBalance(PAYEE, token)
  const key = () => setUp.chain.facilitator.address as Address

  it('each payload alone verifies: the signature over the other token is good', async () => {
    for (const body of await twoPayloads(0, 10_000n)) {
      const verified = await postJson(`${url}/verify`, body)
      expect(verified.body).to.deep.include({ isValid: true })
    }
  })

  it('one after the other: the first moves its token, the second is authorization_already_used, nothing sent', async () => {
    const [onUsdt, onUsd] = await twoPayloads(0, 20_000n)
    const before = { usdt: await moved(setUp.asset), usd: await moved(demoUsd) }
    expect((await settle(onUsdt)).body).to.deep.include({ success: true })
    const sent = await setUp.sentBy(key())
    const second = await settle(onUsd)
    expect(second.body).to.deep.include({ success: false, errorReason: 'authorization_already_used' })
    expect(await setUp.sentBy(key())).to.equal(sent)
    expect(await moved(setUp.asset)).to.equal(before.usdt + 20_000n)
    expect(await moved(demoUsd)).to.equal(before.usd)
  })

  it('the first still in the node pool, unmined: the second refused, nothing more sent', async () => {
    const [onUsdt, onUsd] = await twoPayloads(1, 25_000n)
    const before = { usdt: await moved(setUp.asset), usd: await moved(demoUsd) }
    await anvilRpc(setUp.chain.rpcUrl, 'evm_setAutomine', [false])
    try {
      ;(onUsdt.paymentRequirements as { maxTimeoutSeconds: number }).maxTimeoutSeconds = 1
      const first = settle(onUsdt)
      await waitFor('the first in the pool', async () =>
        (await hasPendingTransaction(setUp.chain.rpcUrl, key())) ? true : undefined,
      )
      const pending = await anvilRpc(setUp.chain.rpcUrl, 'eth_getTransactionCount', [key(), 'pending'])
      const second = await settle(onUsd)
      expect(second.body, JSON.stringify(second.body)).to.deep.include({
        success: false,
        errorReason: 'authorization_already_used',
      })
      expect(await anvilRpc(setUp.chain.rpcUrl, 'eth_getTransactionCount', [key(), 'pending'])).to.equal(pending)
      await anvilRpc(setUp.chain.rpcUrl, 'evm_mine')
      await first
    } finally {
      await anvilRpc(setUp.chain.rpcUrl, 'evm_setAutomine', [true])
    }
    await waitFor('the first settled', async () =>
      (await moved(setUp.asset)) === before.usdt + 25_000n ? true : undefined,
    )
    expect(await moved(demoUsd)).to.equal(before.usd)
  })

  it('both at once, several times: exactly one of each pair moves money, the other refused without a transaction', async () => {
    const pairs = await Promise.all([0, 1, 2, 3].map((payer) => twoPayloads(payer, 30_000n)))
    const before = { usdt: await moved(setUp.asset), usd: await moved(demoUsd) }
    const sent = BigInt(await setUp.sentBy(key()))
    const answers = await Promise.all(pairs.map((pair) => Promise.all(pair.map(settle))))
    for (const pair of answers) {
      const bodies = pair.map((a) => a.body)
      expect(
        bodies.filter((b) => b.success === true),
        JSON.stringify(bodies),
      ).to.have.length(1)
      expect(bodies.filter((b) => b.errorReason === 'authorization_already_used')).to.have.length(1)
    }
    const winners = answers.map((pair) => (pair[0]!.body.success === true ? 'usdt' : 'usd'))
    const count = (token: string) => BigInt(winners.filter((w) => w === token).length)
    expect(await moved(setUp.asset)).to.equal(before.usdt + count('usdt') * 30_000n)
    expect(await moved(demoUsd)).to.equal(before.usd + count('usd') * 30_000n)
    expect(BigInt(await setUp.sentBy(key()))).to.equal(sent + BigInt(pairs.length))
  })

  it('exact on one token and upto on the other with the same nonce, at once: one payment, the other refused', async () => {
    const pairs = await Promise.all(
      [0, 1, 2, 3].map(async (payer) => {
        const exact = setUp.requirements('exact', 40_000n)
        const onUsdt = await setUp.pay(payer, exact)
        const maximum = setUp.requirements('upto', 90_000n, { asset: demoUsd })
        const signed = await setUp.pay(payer, maximum)
        const nonce = permit2NonceOf(onUsdt)
        const onUsd = await resignedPermit2(signed, { nonce }, keyOf(payer), setUp.chain.chainId)
        return [setUp.body(onUsdt, exact), setUp.body(onUsd, { ...maximum, amount: '40000' })]
      }),
    )
    const before = { usdt: await moved(setUp.asset), usd: await moved(demoUsd) }
    const sent = BigInt(await setUp.sentBy(key()))
    const answers = await Promise.all(pairs.map((pair) => Promise.all(pair.map(settle))))
    for (const pair of answers) {
      const bodies = pair.map((a) => a.body)
      expect(
        bodies.filter((b) => b.success === true),
        JSON.stringify(bodies),
      ).to.have.length(1)
      expect(bodies.filter((b) => b.errorReason === 'authorization_already_used')).to.have.length(1)
    }
    const count = (i: number) => BigInt(answers.filter((pair) => pair[i]!.body.success === true).length)
    expect(await moved(setUp.asset)).to.equal(before.usdt + count(0) * 40_000n)
    expect(await moved(demoUsd)).to.equal(before.usd + count(1) * 40_000n)
    expect(BigInt(await setUp.sentBy(key()))).to.equal(sent + BigInt(pairs.length))
  })
})
