import { expect } from 'chai'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { readConfigFile } from '../src/config-file.js'
import { anvilRpc } from './support/chain-control.js'
import { launch, refusalOf, startUpHarness } from './support/start-up-harness.js'
import { TEST_ATTESTATION_KEY } from './support/attestation-key.js'

describe('a configuration file naming its network: served from it, its CAIP-2 id checked (app, anvil, Postgres)', function () {
  this.timeout(120_000)
  const h = startUpHarness()

  /** The app started from the file alone: no setting but what it holds. */
  const startFrom = async (caip2: string, own: { keysFile?: string } = {}) => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'x402-network-file-')), 'x402.json')
    const network = {
      name: 'local',
      caip2,
      rpcUrls: [h.chain.rpcUrl],
      tokens: [{ address: h.chain.tokenAddress }],
      ...own,
    }
    await writeFile(
      file,
      JSON.stringify({
        PORT: 0,
        LOG_LEVEL: 'silent',
        ALLOW_OPEN: true,
        ATTESTATION_PRIVATE_KEY: TEST_ATTESTATION_KEY,
        DATABASE_URL: h.db.connectionString,
        FACILITATOR_PRIVATE_KEY: h.chain.facilitator.privateKey,
        BATCHING: 'off',
        networks: [network],
      }),
    )
    return launch(await readConfigFile(file))
  }

  it("serves the file's network under its name, on the chain its caip2 names", async () => {
    const running = await startFrom(`eip155:${h.chain.chainId}`)
    try {
      const supported = (await (await fetch(`${running.url}/api/facilitator/supported`)).json()) as {
        networks: string[]
        assets: Array<{ network: string; address: string }>
        kinds: Array<{ network: string }>
      }
      expect(supported.networks).to.deep.equal(['local'])
      expect(supported.assets.map((a) => [a.network, a.address.toLowerCase()])).to.deep.equal([
        ['local', h.chain.tokenAddress.toLowerCase()],
      ])
      expect(supported.kinds.map((k) => k.network)).to.deep.equal([`eip155:${h.chain.chainId}`])
    } finally {
      await running.stop()
    }
  })

  it("a network with its own keys (keysFile) signs with them, not the service's", async () => {
    const own = generatePrivateKey()
    const account = privateKeyToAddress(own).toLowerCase()
    await anvilRpc(h.chain.rpcUrl, 'anvil_setBalance', [account, '0x56BC75E2D63100000'])
    const keysFile = path.join(await mkdtemp(path.join(tmpdir(), 'x402-network-keys-')), 'local.keys')
    await writeFile(keysFile, `${own}\n`)
    const running = await startFrom(`eip155:${h.chain.chainId}`, { keysFile })
    try {
      expect(running.facilitators).to.deep.equal([account])
      const supported = (await (await fetch(`${running.url}/api/facilitator/supported`)).json()) as {
        facilitator: string
        signers: Record<string, string[]>
      }
      expect(supported.signers[`eip155:${h.chain.chainId}`]!.map((a) => a.toLowerCase())).to.deep.equal([account])
      expect(supported.facilitator.toLowerCase()).to.equal(account)
    } finally {
      await running.stop()
    }
  })

  it('refuses to start when the node serves another chain than caip2 names', async () => {
    const refusal = await refusalOf(startFrom('eip155:8453'))
    expect(refusal).to.equal(`configuration: NETWORK_CAIP2 is eip155:8453 but RPC_URL serves eip155:${h.chain.chainId}`)
  })
})
