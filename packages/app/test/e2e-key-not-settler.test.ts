import { batchSettlerAbi, deploySettler } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeFunctionData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, receiptOf } from './support/chain-control.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const accountOf = (key: Hex): Address => privateKeyToAddress(key).toLowerCase() as Address
const FUNDED = '0x56BC75E2D63100000'

describe('a key the batch settler no longer allows stops batching: its payments go alone (docs/ARCHITECTURE.md §5.8)', function () {
  this.timeout(180_000)
  const poolKeys = [generatePrivateKey(), generatePrivateKey()]
  const revoked = accountOf(poolKeys[1]!)
  const ownerKey = generatePrivateKey()
  const owner = accountOf(ownerKey)
  let settler: Address
  let f: TestFacilitator
  const logs: Array<Record<string, unknown>> = []

  before(async () => {
    f = await startTestFacilitator(
      { FACILITATOR_PRIVATE_KEYS: poolKeys.join(','), BATCH_WINDOW_MS: '500', LOG_LEVEL: 'warn' },
      {},
      async (chain) => {
        // A settler whose owner is none of the facilitator's keys, so that a test can revoke one of them.
        await anvilRpc(chain.rpcUrl, 'anvil_setBalance', [owner, FUNDED])
        const settlers = [chain.facilitator.address, ...poolKeys.map(accountOf)]
        settler = (
          await deploySettler({
            rpcUrl: chain.rpcUrl,
            token: chain.tokenAddress,
            deployerKey: ownerKey,
            settlers,
            pollingIntervalMs: 20,
          })
        ).address
        return chain.tokenAddress
      },
      () => ({ SETTLER_ADDRESS: settler }),
      (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
    )
  })
  after(() => f?.stop())

  it('revoked after start-up: 60 settles at once all succeed; the revoked key sends at most one batch, then lone transfers', async () => {
    await anvilRpc(f.chain.rpcUrl, 'anvil_impersonateAccount', [owner])
    await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      {
        from: owner,
        to: settler,
        data: encodeFunctionData({ abi: batchSettlerAbi, functionName: 'setSettler', args: [revoked, false] }),
      },
    ])
    const bodies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => f.payment({ payer: i % f.chain.payers.length, value: 4_001n })),
    )
    for (const b of bodies) b.paymentRequirements.amount = '4001'
    const answers = await Promise.all(bodies.map((b) => f.post('settle', b)))
    expect(
      answers.filter((a) => a.body.success !== true).map((a) => a.body),
      'failures',
    ).to.deep.equal([])
    // Whatever the revoked key settled went alone, to the token.
    for (const row of (await f.rows()).filter((r) => r.value === '4001' && r.owner === revoked)) {
      const tx = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [row.tx_hash])) as { to: string }
      expect(tx.to.toLowerCase()).to.equal(f.asset)
      expect((await receiptOf(f.chain.rpcUrl, row.tx_hash as string))?.status).to.equal('0x1')
    }
    const found = logs.filter((l) => l.facilitator === revoked && /no longer lets/.test(String(l.msg)))
    expect(found.length, 'its batches that reverted whole').to.be.within(1, 3)
  })
})
