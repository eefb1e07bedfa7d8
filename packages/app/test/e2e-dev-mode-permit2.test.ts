import { demoUsdtAbi, permit2Abi, x402ExactPermit2ProxyAbi } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { CANONICAL_PERMIT2_CONTRACTS, type EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { createPublicClient, hashDomain, http, maxUint256 } from 'viem'
import { launch } from './support/start-up-harness.js'

describe('dev mode places Permit2, the x402 proxies and DUSDT (real app, its own anvils, Postgres)', function () {
  this.timeout(180_000)
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(() => db?.drop())

  it('each dev chain has them at the canonical addresses; DUSDT is funded, one payer approved Permit2', async () => {
    const running = await launch({ DATABASE_URL: db.connectionString })
    try {
      const { permit2, exactProxy, uptoProxy } = CANONICAL_PERMIT2_CONTRACTS
      expect(running.devChains).to.have.length(2)
      for (const chain of running.devChains) {
        const client = createPublicClient({ transport: http(chain.rpcUrl) })
        for (const proxy of [exactProxy, uptoProxy]) {
          const answer = await client.readContract({
            address: proxy,
            abi: x402ExactPermit2ProxyAbi,
            functionName: 'PERMIT2',
          })
          expect(answer.toLowerCase()).to.equal(permit2)
        }
        const separator = await client.readContract({
          address: permit2,
          abi: permit2Abi,
          functionName: 'DOMAIN_SEPARATOR',
        })
        expect(separator).to.equal(
          hashDomain({
            domain: { name: 'Permit2', chainId: BigInt(chain.chainId), verifyingContract: permit2 },
            types: {
              EIP712Domain: [
                { name: 'name', type: 'string' },
                { name: 'chainId', type: 'uint256' },
                { name: 'verifyingContract', type: 'address' },
              ],
            },
          }),
        )
        // Both networks advertise Permit2 through DUSD, which allows both methods; DEUR stays EIP-3009 only.
        const routes = running.routes.filter((route) => route.caip2 === `eip155:${chain.chainId}`)
        const methods = Object.fromEntries(routes.map((route) => [route.token.symbol, route.token.transferMethods]))
        expect(methods).to.deep.include({ DUSD: ['eip3009', 'permit2'] })
        if (chain.chainId === 31338) expect(methods).to.deep.equal({ DUSD: ['eip3009', 'permit2'], DEUR: ['eip3009'] })
        for (const route of routes) expect(route.facilitator.policy.permit2).to.deep.equal(CANONICAL_PERMIT2_CONTRACTS)
      }

      const [first] = running.devChains
      const dusdt = running.routes.find((route) => route.token.symbol === 'DUSDT')
      expect(dusdt?.caip2).to.equal('eip155:31337')
      expect(dusdt!.token).to.include({ eip2612: true, decimals: 6 })
      expect(dusdt!.token.transferMethods).to.deep.equal(['permit2'])
      expect(dusdt!.facilitator.policy.uptoFacilitators).to.deep.equal([running.policy.facilitator])
      const client = createPublicClient({ transport: http(first!.rpcUrl) })
      const read = (functionName: 'balanceOf' | 'allowance', args: readonly Address[]) =>
        client.readContract({
          address: dusdt!.asset as `0x${string}`,
          abi: demoUsdtAbi,
          functionName,
          args: args as never,
        })
      const payers = first!.payers.map((payer) => payer.address)
      expect(payers).to.have.length(5)
      for (const [i, payer] of payers.entries()) {
        expect(await read('balanceOf', [payer])).to.equal(1_000_000_000n)
        // The first payer approved Permit2; the others pay by a sponsored EIP-2612 permit.
        expect(await read('allowance', [payer, permit2])).to.equal(i === 0 ? maxUint256 : 0n)
      }
      // All of it from anvil's own account and the payer: the facilitator key sent only its settler's two.
      const sent = await client.getTransactionCount({ address: running.policy.facilitator as `0x${string}` })
      expect(sent).to.equal(2)
    } finally {
      await running.stop()
    }
  })
})
