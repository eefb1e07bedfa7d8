import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, isSettled } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { BATCHING_ON, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const accountOf = (key: Hex): Address => privateKeyToAddress(key).toLowerCase() as Address
const FUNDED = '0x56BC75E2D63100000'

for (const batching of [false, true])
  describe(`a key pool with one key drained of ETH (docs/ARCHITECTURE.md §5.8)${batching ? ', settling in batches' : ''}`, function () {
    this.timeout(180_000)
    const poolKeys = [generatePrivateKey(), generatePrivateKey()]
    const drained = accountOf(poolKeys[1]!)
    let f: TestFacilitator
    const logs: Array<Record<string, unknown>> = []
    /** The times the drained key was tried and refused for itself. */
    const refusalsOfDrained = () =>
      logs.filter((l) => l.facilitator === drained && /is skipped for/.test(String(l.msg))).length
    const nonceOf = async (account: Address) =>
      BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [account, 'pending'])) as string)

    before(async () => {
      f = await startTestFacilitator(
        { ...(batching ? BATCHING_ON : {}), FACILITATOR_PRIVATE_KEYS: poolKeys.join(','), LOG_LEVEL: 'warn' },
        {},
        undefined,
        undefined,
        (line) => {
          logs.push(JSON.parse(line) as Record<string, unknown>)
        },
      )
    })
    after(() => f?.stop())

    const settleMany = async (count: number, value: bigint) => {
      const bodies = await Promise.all(
        Array.from({ length: count }, (_, i) => f.payment({ payer: i % f.chain.payers.length, value })),
      )
      for (const b of bodies) b.paymentRequirements.amount = String(value)
      return Promise.all(bodies.map((b) => f.post('settle', b)))
    }

    it('60 settles at once: all succeed on the two others; the drained key sends nothing and is tried at most twice', async () => {
      await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [drained, '0x0'])
      const answers = await settleMany(60, 3_001n)
      expect(
        answers.filter((a) => a.body.success !== true).map((a) => a.body),
        'failures',
      ).to.deep.equal([])
      const rows = (await f.rows()).filter((r) => r.value === '3001')
      expect(rows).to.have.length(60)
      for (const row of rows) {
        expect(isSettled(row.state as string)).to.equal(true)
        expect(row.owner).to.not.equal(drained)
      }
      expect(await nonceOf(drained)).to.equal(0n)
      expect(refusalsOfDrained()).to.be.at.most(2)
    })

    if (!batching) {
      it('a key drained while in use: the settles it fails go to the others (all 60 succeed), and it is tried a bounded number of times', async () => {
        await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [drained, FUNDED])
        // The key is in use again once its balance is read again (at most 2 s old) ...
        await waitFor('the refunded key settles again', async () => {
          const answers = await settleMany(3, 3_002n)
          expect(
            answers.filter((a) => a.body.success !== true).map((a) => a.body),
            'failures',
          ).to.deep.equal([])
          return (await nonceOf(drained)) > 0n ? true : undefined
        })
        // ... and then drained, its balance still known as enough.
        const nonce = await nonceOf(drained)
        const before = refusalsOfDrained()
        await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [drained, '0x0'])
        const answers = await settleMany(60, 3_003n)
        expect(
          answers.filter((a) => a.body.success !== true).map((a) => a.body),
          'failures',
        ).to.deep.equal([])
        for (const row of (await f.rows()).filter((r) => r.value === '3003')) expect(row.owner).to.not.equal(drained)
        expect(await nonceOf(drained)).to.equal(nonce)
        // At most the settles given to it before its first refusal (a third of those in flight), and a probe or two.
        expect(refusalsOfDrained() - before).to.be.at.most(24)
      })
    }
  })
