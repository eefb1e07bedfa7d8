// The CI image step (.ci/run): the service image, as an operator runs it, settles one payment exactly once. Anvil with
// Circle's USDC, the test Postgres (testcontainers where an engine answers), the image on the host network with its
// keys in the environment and the rest in a mounted config file; a payment signed by the official @x402/evm client.
// Run after `npm run build` and the image's build: npx mocha --no-config --timeout 300000 <this file>
/* global describe, before, after, it */
import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { makeChainRpc } from '@x402-facilitator/adapters-chain'
import { deployCircleUsdc, fiatTokenV2_2Abi, startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import { expect } from 'chai'
import { createPublicClient, http, parseAbiItem } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { freePort, serviceImage, startServiceContainer, waitFor } from './service-container.mjs'

const AMOUNT = 1_250_000n

describe(`the service image (${serviceImage}) settles a payment exactly once`, function () {
  this.timeout(300_000)
  let chain, rpc, usdc, db, configDir, container, base, facilitator, publicClient
  const apiKey = `ci-${generatePrivateKey().slice(2, 34)}`
  const payee = privateKeyToAddress(generatePrivateKey()).toLowerCase()

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    usdc = await deployCircleUsdc(rpc)
    await usdc.mint(chain.payers[0].address, 10n * AMOUNT)
    publicClient = createPublicClient({ transport: http(chain.rpcUrl) })
    // Not migrated: the image migrates at start-up.
    db = await createTestDatabase({ migrate: false })
    configDir = await mkdtemp(path.join(os.tmpdir(), 'x402-image-config-'))
    await chmod(configDir, 0o755)
    await writeFile(path.join(configDir, 'api-keys'), `${apiKey}\n`, { mode: 0o644 })
    const config = { ASSET_ADDRESS: usdc.address, API_KEYS_FILE: '/etc/x402-facilitator/api-keys' }
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify(config), { mode: 0o644 })
    const port = await freePort()
    container = await startServiceContainer({
      name: `x402-image-ci-${process.pid}`,
      configDir,
      args: ['--config', '/etc/x402-facilitator/config.json'],
      env: {
        RPC_URL: chain.rpcUrl,
        DATABASE_URL: db.connectionString,
        FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
        ATTESTATION_PRIVATE_KEY: generatePrivateKey(),
        HOST: '127.0.0.1',
        PORT: String(port),
      },
    })
    base = `http://127.0.0.1:${port}/api/facilitator`
    const headers = { Authorization: `Bearer ${apiKey}` }
    facilitator = new HTTPFacilitatorClient({
      url: base,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
    })
  })

  after(async function () {
    if (this.currentTest?.state === 'failed' && container) console.log(await container.logs())
    await container?.remove()
    if (configDir) await rm(configDir, { recursive: true, force: true })
    rpc?.close()
    await db?.drop()
    await chain?.stop()
  })

  const balanceOf = (owner) =>
    publicClient.readContract({
      address: usdc.address,
      abi: fiatTokenV2_2Abi,
      functionName: 'balanceOf',
      args: [owner],
    })

  it('becomes healthy (its HEALTHCHECK on /readyz) and answers /readyz 200, running as a non-root user', async () => {
    await waitFor(
      'the container healthy',
      async () => {
        if (!(await container.running())) throw new Error(`the container stopped:\n${await container.logs()}`)
        return { done: (await container.health()) === 'healthy', health: await container.health() }
      },
      180_000,
    )
    const ready = await fetch(`http://${new URL(base).host}/readyz`)
    expect(ready.status).to.equal(200)
    expect(await ready.json()).to.include({ status: 'ready' })
    const ids = await container.processIds()
    expect(ids.uid).to.not.equal('0')
    expect(ids.gid).to.not.equal('0')
  })

  it('settles a payment signed by x402Client once; the same payload again is refused; one transfer, one row', async () => {
    const network = `eip155:${chain.chainId}`
    const requirements = {
      scheme: 'exact',
      network,
      amount: AMOUNT.toString(),
      asset: usdc.address,
      payTo: payee,
      maxTimeoutSeconds: 60,
      extra: { name: usdc.eip712.name, version: usdc.eip712.version },
    }
    const payer = chain.payers[0]
    const client = new x402Client()
      .register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(payer.privateKey))))
      .setSpendControls({ allowedAssets: [{ network, asset: usdc.address }] })
    const payload = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://api.example/paid' },
      accepts: [requirements],
    })
    const payerBefore = await balanceOf(payer.address)

    const settled = await facilitator.settle(payload, requirements)
    expect(settled).to.deep.include({ success: true, payer: payer.address, network })
    const again = await facilitator.settle(payload, requirements)
    expect(again).to.deep.include({
      success: false,
      errorReason: 'authorization_already_used',
      transaction: settled.transaction,
    })

    const receipt = await publicClient.getTransactionReceipt({ hash: settled.transaction })
    expect(receipt.status).to.equal('success')
    expect(await balanceOf(payee)).to.equal(AMOUNT)
    expect(await balanceOf(payer.address)).to.equal(payerBefore - AMOUNT)
    const transfers = await publicClient.getLogs({
      address: usdc.address,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      args: { to: payee },
      fromBlock: 0n,
    })
    expect(transfers).to.have.length(1)
    const rows = await db.knex('settlements').select('tx_hash', 'payer', 'payee', 'value', 'state')
    expect(rows).to.have.length(1)
    expect(rows[0]).to.include({ tx_hash: settled.transaction, payer: payer.address, payee, value: String(AMOUNT) })
  })
})
