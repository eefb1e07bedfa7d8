import { batchSettlerAbi, makeChainRpc, type ChainRpc } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { decodeFunctionResult, encodeFunctionData, numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const SCRIPT = fileURLToPath(new URL('../src/tools/deploy-settler.js', import.meta.url))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `command` with the environment an operator would set (nothing of this process's own chain settings). */
const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<Run> =>
  new Promise((resolve, reject) => {
    const {
      RPC_URL: _rpc,
      ASSET_ADDRESS: _asset,
      FACILITATOR_PRIVATE_KEY: _key,
      FACILITATOR_PRIVATE_KEYS: _keys,
      ...inherited
    } = process.env
    const child = spawn(command, args, { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let [stdout, stderr] = ['', '']
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
const deployScript = (env: Record<string, string>) => run(process.execPath, [SCRIPT], env)

const address = (key: Hex): Address => privateKeyToAddress(key).toLowerCase() as Address

describe('npm run deploy-settler: deploys the batch settler for an operator (anvil)', function () {
  this.timeout(180_000)
  let chain: LocalChain
  let rpc: ChainRpc

  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  const funded = async (): Promise<Hex> => {
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [address(key), numberToHex(10n ** 18n)])
    return key
  }
  const view = async (
    settler: Address,
    functionName: 'owner' | 'isSettler' | 'token',
    args: ReadonlyArray<unknown> = [],
  ) => {
    const data = (await rpc.read('eth_call', [
      { to: settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName, args: args as never }) },
      'latest',
    ])) as Hex
    return decodeFunctionResult({ abi: batchSettlerAbi, functionName, data })
  }
  const nonceOf = async (account: Address) =>
    BigInt(String(await rpc.read('eth_getTransactionCount', [account, 'latest'])))

  it('builds, deploys from the first key, allows every key, and prints SETTLER_ADDRESS=0x… last', async () => {
    const [first, second, third] = [await funded(), await funded(), await funded()]
    const { code, stdout, stderr } = await run('npm', ['run', '--silent', 'deploy-settler'], {
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.tokenAddress,
      FACILITATOR_PRIVATE_KEY: first,
      FACILITATOR_PRIVATE_KEYS: ` ${second}, ${third},${first}`,
    })
    expect(code, stderr).to.equal(0)
    const last = stdout.trimEnd().split('\n').at(-1)!
    expect(last).to.match(/^SETTLER_ADDRESS=0x[0-9a-f]{40}$/)
    const settler = last.slice('SETTLER_ADDRESS='.length) as Address
    expect(String(await rpc.read('eth_getCode', [settler, 'latest'])).length).to.be.greaterThan(2)
    expect(String(await view(settler, 'token')).toLowerCase()).to.equal(chain.tokenAddress)
    expect(String(await view(settler, 'owner')).toLowerCase()).to.equal(address(first))
    for (const key of [first, second, third])
      expect(await view(settler, 'isSettler', [address(key)]), address(key)).to.equal(true)
    expect(await view(settler, 'isSettler', [chain.facilitator.address])).to.equal(false)
    // One deployment and one setSettler per distinct key, all from the first.
    expect([await nonceOf(address(first)), await nonceOf(address(second))]).to.deep.equal([4n, 0n])
  })

  it('refuses, naming what is wrong, before sending anything: no RPC_URL, no key, a bad key, no code at ASSET_ADDRESS, no gas funds', async () => {
    const key = await funded()
    const base = { RPC_URL: chain.rpcUrl, ASSET_ADDRESS: chain.tokenAddress, FACILITATOR_PRIVATE_KEY: key }
    const cases: ReadonlyArray<readonly [Record<string, string>, RegExp]> = [
      [{ ...base, RPC_URL: '' }, /^deploy-settler: RPC_URL is required/],
      [
        { ...base, ASSET_ADDRESS: 'dd' },
        /^deploy-settler: ASSET_ADDRESS must be a 0x-prefixed 20-byte hex address \(got "dd"\)/,
      ],
      [
        { ...base, FACILITATOR_PRIVATE_KEY: '' },
        /^deploy-settler: FACILITATOR_PRIVATE_KEY or FACILITATOR_PRIVATE_KEYS is required/,
      ],
      [
        { ...base, FACILITATOR_PRIVATE_KEYS: `${key},0x1234` },
        /^deploy-settler: FACILITATOR_PRIVATE_KEYS \(item 2\) must be a 0x-prefixed 32-byte hex private key\n$/,
      ],
      [
        { ...base, ASSET_ADDRESS: '0x00000000000000000000000000000000000000dd' },
        /^deploy-settler: ASSET_ADDRESS 0x0+dd has no code on chain 31337/,
      ],
      [{ ...base, RPC_URL: 'http://127.0.0.1:9' }, /^deploy-settler: cannot reach RPC_URL/],
      [
        { ...base, FACILITATOR_PRIVATE_KEY: generatePrivateKey() },
        /^deploy-settler: insufficient gas funds: the deployer 0x[0-9a-f]{40} holds 0 ETH, deploying and allowing 1 settler\(s\) may cost up to [0-9.]+ ETH/,
      ],
    ]
    for (const [env, message] of cases) {
      const { code, stdout, stderr } = await deployScript(env)
      expect([code, stderr], JSON.stringify(env)).to.satisfy(([c, e]: [number, string]) => c === 1 && message.test(e))
      expect(stdout).not.to.include('SETTLER_ADDRESS')
    }
    expect(await nonceOf(address(key))).to.equal(0n)
  })
})
