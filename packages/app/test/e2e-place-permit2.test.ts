import { makeChainRpc, type ChainRpc } from '@x402-facilitator/adapters-chain'
import { startLocalChain, type LocalChain } from '@x402-facilitator/adapters-chain/testing'
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SCRIPT = fileURLToPath(new URL('../src/tools/place-permit2.js', import.meta.url))
const CANONICAL = {
  PERMIT2_ADDRESS: '0x000000000022d473030f116ddee9f6b43ac78ba3',
  EXACT_PERMIT2_PROXY_ADDRESS: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
  UPTO_PERMIT2_PROXY_ADDRESS: '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002',
}

const runTool = (env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const { RPC_URL: _rpc, ...inherited } = process.env
    const child = spawn(process.execPath, [SCRIPT], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let [stdout, stderr] = ['', '']
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })

/**
 * `npm run place-permit2` (issue 41, a newcomer's finding): Permit2 and x402's two proxies put on a local chain outside
 * dev mode, at the canonical addresses the service checks by default.
 */
describe('npm run place-permit2: Permit2 and the x402 proxies on a local chain (anvil)', function () {
  this.timeout(120_000)
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

  const codeAt = async (address: string) => String(await rpc.read('eth_getCode', [address, 'latest']))

  it('places all three at their canonical addresses and prints the settings that name them', async () => {
    for (const address of Object.values(CANONICAL)) expect(await codeAt(address)).to.equal('0x')
    const { code, stdout, stderr } = await runTool({ RPC_URL: chain.rpcUrl })
    expect(code, stderr).to.equal(0)
    const lines = stdout.trim().split('\n').slice(-3)
    expect(lines).to.deep.equal(Object.entries(CANONICAL).map(([name, address]) => `${name}=${address}`))
    for (const address of Object.values(CANONICAL)) expect((await codeAt(address)).length).to.be.greaterThan(2)
  })

  it('without RPC_URL: one line naming it, exit 1', async () => {
    const { code, stderr } = await runTool({})
    expect(code).to.equal(1)
    expect(stderr.trim()).to.equal(
      'place-permit2: RPC_URL is required: the JSON-RPC endpoint of the local or test chain',
    )
  })
})
