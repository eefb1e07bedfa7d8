import { batchSettlerAbi, deploySettler, makeChainRpc, type ChainRpc } from '@x402-facilitator/adapters-chain'
import { deployCircleUsdc, fakeSettlerAbi, fakeSettlerBytecode } from '@x402-facilitator/adapters-chain/testing'
import { createTestDatabase, type TestDatabase } from '@x402-facilitator/adapters-persistence/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, encodeFunctionData, numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, receiptOf } from './support/chain-control.js'
import { launch, startUpHarness } from './support/start-up-harness.js'
import type { RunningFacilitator } from '../src/start-facilitator.js'
import { waitFor } from './support/wait-for.js'

type Readiness = { status: string; failing?: string[]; checks: Record<string, { ok: boolean; detail: string }> }
const readiness = async (running: RunningFacilitator): Promise<Readiness> =>
  (await fetch(`${running.url.replace(/\/api\/facilitator$/, '')}/readyz`)).json() as Promise<Readiness>

describe('start-up with SETTLER_ADDRESS: its code, its token and our key are checked (real app, anvil, Postgres)', function () {
  this.timeout(180_000)
  const h = startUpHarness()
  const { start, refusal } = h
  let rpc: ChainRpc
  before(() => {
    rpc = makeChainRpc({ rpcUrl: h.chain.rpcUrl })
  })
  after(() => rpc?.close())

  /** A key holding ETH, not the facilitator's. */
  const fundedKey = async (): Promise<Hex> => {
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), numberToHex(10n ** 18n)])
    return key
  }
  const settlerFor = async (
    token: Address,
    settlers: ReadonlyArray<Address> = [h.chain.facilitator.address],
    deployerKey?: Hex,
  ) =>
    (
      await deploySettler({
        rpcUrl: h.chain.rpcUrl,
        token,
        deployerKey: deployerKey ?? (await fundedKey()),
        settlers,
        pollingIntervalMs: 20,
      })
    ).address

  it('refuses a SETTLER_ADDRESS with no code, naming npm run deploy-settler', async () => {
    const empty = '0x00000000000000000000000000000000005e7713'
    expect(await refusal({ SETTLER_ADDRESS: empty })).to.equal(
      `configuration: SETTLER_ADDRESS ${empty} has no code on this chain: run npm run deploy-settler and set ` +
        `SETTLER_ADDRESS to the address it prints, or unset SETTLER_ADDRESS`,
    )
  })

  it('refuses a contract that answers no token() (the token itself): it is no BatchSettler', async () => {
    expect(await refusal({ SETTLER_ADDRESS: h.chain.tokenAddress })).to.equal(
      `configuration: SETTLER_ADDRESS ${h.chain.tokenAddress} does not answer token(), so it is no BatchSettler: ` +
        `run npm run deploy-settler and set SETTLER_ADDRESS to the address it prints`,
    )
  })

  it("refuses a settler of another token (Circle's USDC on the same chain), and starts with it when that token is ASSET_ADDRESS", async () => {
    const usdc = await deployCircleUsdc(rpc)
    const usdcSettler = await settlerFor(usdc.address)
    expect(await refusal({ SETTLER_ADDRESS: usdcSettler })).to.equal(
      `configuration: SETTLER_ADDRESS ${usdcSettler} settles the token ${usdc.address}, not ASSET_ADDRESS ` +
        `${h.chain.tokenAddress}: run npm run deploy-settler for ${h.chain.tokenAddress} and set SETTLER_ADDRESS to ` +
        `the address it prints`,
    )
    const running = await start({ SETTLER_ADDRESS: usdcSettler, ASSET_ADDRESS: usdc.address })
    try {
      expect(running.settler).to.deep.equal({ address: usdcSettler, maxItems: 100, windowMs: 25 })
    } finally {
      await running.stop()
    }
  })

  it('refuses a contract that answers as a BatchSettler but runs other code (a fake that reports payments it never made), naming npm run deploy-settler', async () => {
    const deployer = privateKeyToAddress(await fundedKey())
    const data = encodeDeployData({
      abi: fakeSettlerAbi,
      bytecode: fakeSettlerBytecode,
      args: [h.chain.tokenAddress, 300_000n],
    })
    await anvilRpc(h.chain.rpcUrl, 'anvil_impersonateAccount', [deployer])
    const hash = (await anvilRpc(h.chain.rpcUrl, 'eth_sendTransaction', [{ from: deployer, data }])) as string
    const deployed = await waitFor('the fake settler deployed', () =>
      receiptOf(h.chain.rpcUrl, hash).then((receipt) => receipt ?? undefined),
    )
    const fake = (deployed as unknown as { contractAddress: Address }).contractAddress
    expect(await refusal({ SETTLER_ADDRESS: fake })).to.equal(
      `configuration: SETTLER_ADDRESS ${fake} runs other code than the BatchSettler of this version (compared ` +
        `with its token() and itemGasLimit() filled in): run npm run deploy-settler and set SETTLER_ADDRESS to ` +
        `the address it prints`,
    )
  })

  it('accepts any real deployment: two settlers of this version with other itemGasLimits (its code is compared with their immutables filled in)', async () => {
    for (const itemGasLimit of [60_000n, 1_234_567n]) {
      const settler = (
        await deploySettler({
          rpcUrl: h.chain.rpcUrl,
          token: h.chain.tokenAddress,
          deployerKey: await fundedKey(),
          settlers: [h.chain.facilitator.address],
          itemGasLimit,
          pollingIntervalMs: 20,
        })
      ).address
      const running = await start({ SETTLER_ADDRESS: settler })
      try {
        expect(running.settler).to.deep.equal({ address: settler, maxItems: 100, windowMs: 25 })
      } finally {
        await running.stop()
      }
    }
  })

  it('refuses a settler that does not let the facilitator key settle, naming setSettler and the owner', async () => {
    const ownerKey = await fundedKey()
    const owner = privateKeyToAddress(ownerKey).toLowerCase()
    const settler = await settlerFor(h.chain.tokenAddress, [owner as Address], ownerKey)
    expect(await refusal({ SETTLER_ADDRESS: settler })).to.equal(
      `configuration: SETTLER_ADDRESS ${settler} does not let the facilitator ${h.chain.facilitator.address} ` +
        `settle: call setSettler(${h.chain.facilitator.address}, true) on it from its owner ${owner}`,
    )
  })

  it('starts with its own settler: exposes it with BATCH_MAX_ITEMS, /readyz reports it, and fails once the owner revokes the key', async () => {
    const ownerKey = await fundedKey()
    const owner = privateKeyToAddress(ownerKey).toLowerCase()
    const settler = await settlerFor(h.chain.tokenAddress, [h.chain.facilitator.address], ownerKey)
    const running = await start({
      SETTLER_ADDRESS: settler.toUpperCase().replace('0X', '0x'),
      BATCH_MAX_ITEMS: '7',
      PROBE_REFRESH_MS: '200',
    })
    try {
      expect(running.settler).to.deep.equal({ address: settler, maxItems: 7, windowMs: 25 })
      const ready = await readiness(running)
      expect(ready.status).to.equal('ready')
      expect(ready.checks.settler).to.deep.equal({ ok: true, detail: settler })

      await anvilRpc(h.chain.rpcUrl, 'anvil_impersonateAccount', [owner])
      const revoke = encodeFunctionData({
        abi: batchSettlerAbi,
        functionName: 'setSettler',
        args: [h.chain.facilitator.address, false],
      })
      const hash = (await anvilRpc(h.chain.rpcUrl, 'eth_sendTransaction', [
        { from: owner, to: settler, data: revoke },
      ])) as string
      expect(
        (
          await waitFor('the revocation mined', () =>
            receiptOf(h.chain.rpcUrl, hash).then((receipt) => receipt ?? undefined),
          )
        ).status,
      ).to.equal('0x1')
      // /readyz reads a snapshot refreshed in the background: the revocation shows at its next refresh.
      const revoked = await waitFor('/readyz naming the settler', async () => {
        const answer = await readiness(running)
        return answer.status === 'not_ready' ? answer : undefined
      })
      expect(revoked).to.deep.include({ status: 'not_ready', failing: ['settler'] })
      expect(revoked.checks.settler).to.deep.equal({
        ok: false,
        detail: `${settler} no longer lets ${h.chain.facilitator.address} settle`,
      })
    } finally {
      await running.stop()
    }
  })

  it('BATCHING=off: SETTLER_ADDRESS is neither checked nor used', async () => {
    const running = await start({ SETTLER_ADDRESS: '0x00000000000000000000000000000000005e7713', BATCHING: 'off' })
    try {
      expect(running.settler).to.equal(undefined)
      const ready = await readiness(running)
      expect(ready.status).to.equal('ready')
      expect(ready.checks).to.not.have.property('settler')
    } finally {
      await running.stop()
    }
  })
})

describe('dev mode deploys its own settler; BATCHING=off deploys none (real app, its own anvil, Postgres)', function () {
  this.timeout(180_000)
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase()
  })
  after(() => db?.drop())

  const nonceOf = async (running: RunningFacilitator, account: Address) =>
    BigInt((await anvilRpc(running.rpcUrl, 'eth_getTransactionCount', [account, 'latest'])) as string)

  it('deploys a BatchSettler for the demo token that lets the facilitator key settle, and uses it as SETTLER_ADDRESS would be', async () => {
    const running = await launch({ DATABASE_URL: db.connectionString, BATCH_MAX_ITEMS: '25' })
    try {
      const settler = running.devChain?.settlerAddress
      expect(settler).to.match(/^0x[0-9a-f]{40}$/)
      expect(running.settler).to.deep.equal({ address: settler, maxItems: 25, windowMs: 25 })
      // Dev mode serves two networks: each one's checks are named after it.
      expect((await readiness(running)).checks['settler:eip155:31337']).to.deep.equal({ ok: true, detail: settler })
      // Its deployment and setSettler came from the facilitator key.
      expect(await nonceOf(running, running.policy.facilitator as `0x${string}`)).to.equal(2n)
    } finally {
      await running.stop()
    }
  })

  it('BATCHING=off: nothing deployed, no settler, the facilitator key unused', async () => {
    const running = await launch({ DATABASE_URL: db.connectionString, BATCHING: 'off' })
    try {
      expect(running.devChain?.settlerAddress).to.equal(undefined)
      expect(running.settler).to.equal(undefined)
      expect((await readiness(running)).checks).to.not.have.property('settler')
      expect(await nonceOf(running, running.policy.facilitator as `0x${string}`)).to.equal(0n)
    } finally {
      await running.stop()
    }
  })
})
