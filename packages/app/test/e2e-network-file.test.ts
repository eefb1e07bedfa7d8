import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { loadConfig } from '../src/config.js'
import { readConfigFile } from '../src/config-file.js'
import { startFacilitator } from '../src/start-facilitator.js'

describe('a configuration file naming its network: served from it, its CAIP-2 id checked (app, anvil, Postgres)', function () {
  this.timeout(120_000)
  let chain: LocalChain
  let db: TestDatabase
  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    db = await createTestDatabase()
  })
  after(async () => {
    await db?.drop()
    await chain?.stop()
  })

  const startFrom = async (caip2: string) => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'x402-network-file-')), 'x402.json')
    const network = { name: 'local', caip2, rpcUrls: [chain.rpcUrl], tokens: [{ address: chain.tokenAddress }] }
    await writeFile(
      file,
      JSON.stringify({
        PORT: 0,
        LOG_LEVEL: 'silent',
        ALLOW_OPEN: true,
        DATABASE_URL: db.connectionString,
        FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
        BATCHING: 'off',
        networks: [network],
      }),
    )
    const config = loadConfig(await readConfigFile(file))
    if (E.isLeft(config)) throw new Error(config.left)
    return startFacilitator({ config: config.right, logger: pino({ level: 'silent' }) })
  }

  it("serves the file's network under its name, on the chain its caip2 names", async () => {
    const running = await startFrom(`eip155:${chain.chainId}`)
    try {
      const supported = (await (await fetch(`${running.url}/api/facilitator/supported`)).json()) as {
        networks: string[]
        assets: Array<{ network: string; address: string }>
        kinds: Array<{ network: string }>
      }
      expect(supported.networks).to.deep.equal(['local'])
      expect(supported.assets.map((a) => [a.network, a.address.toLowerCase()])).to.deep.equal([
        ['local', chain.tokenAddress.toLowerCase()],
      ])
      expect(supported.kinds.map((k) => k.network)).to.deep.equal([`eip155:${chain.chainId}`])
    } finally {
      await running.stop()
    }
  })

  it('refuses to start when the node serves another chain than caip2 names', async () => {
    const refusal = await startFrom('eip155:8453').then(
      async (running) => {
        await running.stop()
        return undefined
      },
      (error: Error) => error.message,
    )
    expect(refusal).to.equal(`configuration: NETWORK_CAIP2 is eip155:8453 but RPC_URL serves eip155:${chain.chainId}`)
  })
})
