import { expect } from 'chai'
import { deployDemoUsdt, deployPermit2Suite } from '@x402-facilitator/adapters-chain/testing'
import { makeChainRpc } from '@x402-facilitator/adapters-chain'
import { CANONICAL_PERMIT2_CONTRACTS, type EvmAddress as Address } from '@x402-facilitator/domain'
import { getContractAddress } from 'viem'
import { anvilRpc } from './support/chain-control.js'
import { startUpHarness } from './support/start-up-harness.js'

const { permit2: PERMIT2 } = CANONICAL_PERMIT2_CONTRACTS
const REFUSED = 'configuration: network eip155:31337: '
const EXACT_ALONE =
  '; where only the exact proxy is deployed, set UPTO_PERMIT2_PROXY_ADDRESS=none (uptoPermit2Proxy: "none") to ' +
  'serve Permit2 exact alone'

describe('start-up checks Permit2 and the x402 proxies when a token allows permit2 (real app, anvil, Postgres)', function () {
  this.timeout(120_000)
  const harness = startUpHarness()
  const both = { TRANSFER_METHODS: 'eip3009,permit2' }
  /** Where deployPermit2Suite's CREATE copy of Permit2 stayed: a real Permit2, made for its own address. */
  let permit2Copy: Address

  it('a token allowing permit2 on a chain without Permit2 is refused, naming the network and the contract', async () => {
    expect(await harness.refusal(both)).to.equal(
      `${REFUSED}Permit2 (permit2, PERMIT2_ADDRESS) ${PERMIT2} has no code on this chain (a token there allows permit2)`,
    )
    // EIP-3009 only (unset): nothing of Permit2 is checked or set, as before.
    const running = await harness.start()
    try {
      expect(running.policy.asset.transferMethods).to.deep.equal(['eip3009'])
      expect(running.policy).to.not.have.property('permit2')
      expect(running.policy).to.not.have.property('uptoFacilitators')
    } finally {
      await running.stop()
    }
  })

  it("starts once they are placed: the policy carries the contracts, the methods and this replica's keys", async () => {
    const deployer = ((await anvilRpc(harness.chain.rpcUrl, 'eth_accounts')) as Address[])[0]!
    const nonce = BigInt(
      (await anvilRpc(harness.chain.rpcUrl, 'eth_getTransactionCount', [deployer, 'latest'])) as string,
    )
    await deployPermit2Suite(harness.chain.rpcUrl)
    permit2Copy = getContractAddress({ from: deployer, nonce }).toLowerCase() as Address
    const running = await harness.start(both)
    try {
      expect(running.policy.permit2).to.deep.equal(CANONICAL_PERMIT2_CONTRACTS)
      expect(running.policy.uptoFacilitators).to.deep.equal([harness.chain.facilitator.address.toLowerCase()])
      expect(running.policy.asset.transferMethods).to.deep.equal(['eip3009', 'permit2'])
      // The demo token (DUSD) answers EIP-3009, not EIP-2612.
      expect(running.routes[0]!.token).to.include({ eip2612: false })
      expect(running.routes[0]!.token.transferMethods).to.deep.equal(['eip3009', 'permit2'])
    } finally {
      await running.stop()
    }
  })

  it('a permit2-only EIP-2612 token (no EIP-3009) starts, its EIP-2612 read', async () => {
    const rpc = makeChainRpc({ rpcUrl: harness.chain.rpcUrl })
    const dusdt = await deployDemoUsdt(rpc).finally(() => rpc.close())
    const running = await harness.start({ ASSET_ADDRESS: dusdt.address, TRANSFER_METHODS: 'permit2' })
    try {
      expect(running.routes[0]!.token).to.include({ symbol: 'DUSDT', eip2612: true })
      expect(running.policy.permit2).to.deep.equal(CANONICAL_PERMIT2_CONTRACTS)
    } finally {
      await running.stop()
    }
  })

  it('proxies that call another Permit2 than the configured one are refused, naming the proxy', async () => {
    // A real Permit2 (the CREATE copy), configured; the canonical proxies call the canonical one.
    expect(await harness.refusal({ ...both, PERMIT2_ADDRESS: permit2Copy })).to.equal(
      `${REFUSED}the exact Permit2 proxy (exactPermit2Proxy, EXACT_PERMIT2_PROXY_ADDRESS) ` +
        `${CANONICAL_PERMIT2_CONTRACTS.exactProxy} answers PERMIT2() ${PERMIT2}, not the configured Permit2 ` +
        `${permit2Copy} (a token there allows permit2)`,
    )
    // A proxy address that is no proxy (the token).
    expect(await harness.refusal({ ...both, UPTO_PERMIT2_PROXY_ADDRESS: harness.chain.tokenAddress })).to.equal(
      `${REFUSED}the upto Permit2 proxy (uptoPermit2Proxy, UPTO_PERMIT2_PROXY_ADDRESS) ${harness.chain.tokenAddress} ` +
        'does not answer PERMIT2(): it is no x402 Permit2 proxy (a token there allows permit2)' +
        EXACT_ALONE,
    )
  })

  it('where only the exact proxy is deployed: refused naming the way out; with the upto proxy none, exact alone', async () => {
    const nowhere = `0x${'de'.repeat(20)}` as Address
    expect(await harness.refusal({ ...both, UPTO_PERMIT2_PROXY_ADDRESS: nowhere })).to.equal(
      `${REFUSED}the upto Permit2 proxy (uptoPermit2Proxy, UPTO_PERMIT2_PROXY_ADDRESS) ${nowhere} ` +
        'has no code on this chain (a token there allows permit2)' +
        EXACT_ALONE,
    )
    const running = await harness.start({ ...both, UPTO_PERMIT2_PROXY_ADDRESS: 'none' })
    try {
      const { uptoProxy: _upto, ...exactAlone } = CANONICAL_PERMIT2_CONTRACTS
      expect(running.policy.permit2).to.deep.equal(exactAlone)
      expect(running.routes[0]!.token).to.include({ upto: false })
      // /supported names the exact kind (Permit2 among its methods) and no upto kind.
      const { kinds } = (await (await fetch(`${running.url}/api/facilitator/supported`)).json()) as {
        kinds: Array<{ scheme: string; extra?: { assets?: Array<{ transferMethods: string[] }> } }>
      }
      expect(kinds.map((kind) => kind.scheme)).to.deep.equal(['exact'])
      expect(kinds[0]!.extra!.assets![0]!.transferMethods).to.deep.equal(['eip3009', 'permit2'])
    } finally {
      await running.stop()
    }
  })

  it('a Permit2 copied from another address (its cached domain separator names that one) is refused, naming Permit2', async () => {
    const canonicalCode = await anvilRpc(harness.chain.rpcUrl, 'eth_getCode', [PERMIT2, 'latest'])
    await anvilRpc(harness.chain.rpcUrl, 'anvil_setCode', [
      PERMIT2,
      await anvilRpc(harness.chain.rpcUrl, 'eth_getCode', [permit2Copy, 'latest']),
    ])
    try {
      const refusal = await harness.refusal(both)
      expect(refusal).to.match(
        new RegExp(
          `^${REFUSED}Permit2 \\(permit2, PERMIT2_ADDRESS\\) ${PERMIT2} answers DOMAIN_SEPARATOR\\(\\) 0x[0-9a-f]{64}, ` +
            "not Permit2's own at this address on chain 31337 \\(another contract, or a copy made for another " +
            'address\\) \\(a token there allows permit2\\)$',
        ),
      )
    } finally {
      await anvilRpc(harness.chain.rpcUrl, 'anvil_setCode', [PERMIT2, canonicalCode])
    }
    const running = await harness.start(both)
    await running.stop()
  })
})
