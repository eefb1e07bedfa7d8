import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { decodeFunctionResult, encodeFunctionData } from 'viem'
import { startAnvil } from '../src/testing/anvil-process.js'
import { makeChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { batchSettlerAbi } from '../src/generated/batch-settler.js'
import { startLocalChain } from '../src/testing/local-chain.js'
import { eventually, isAlive } from './fixtures.js'

describe('local chain', () => {
  it('starts anvil with the token and funded accounts, and stops it without a trace (even while paused)', async () => {
    const chain = await startLocalChain({ payers: 2 })
    try {
      expect(chain.payers).to.have.length(2)
      expect(chain.rpcUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(chain.tokenAddress).to.match(/^0x[0-9a-f]{40}$/)
      expect(isAlive(chain.anvilPid)).to.equal(true)
      await chain.pause()
    } finally {
      await chain.stop()
    }
    expect(isAlive(chain.anvilPid)).to.equal(false)
    await chain.stop()
  })

  it('anvil dies with its parent, even one killed with SIGKILL', async () => {
    const moduleUrl = new URL('../src/testing/anvil-process.js', import.meta.url).href
    const script =
      `import { startAnvil } from ${JSON.stringify(moduleUrl)}; const a = await startAnvil(); ` +
      `process.stdout.write(String(a.pid) + '\\n'); setInterval(() => {}, 1000)`
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    )
    expect(isAlive(pid)).to.equal(true)
    parent.kill('SIGKILL')
    await eventually(() => !isAlive(pid))
  })

  it('settler: true deploys a BatchSettler for the demo token, owned by the facilitator key and callable by it alone; unset: none', async () => {
    const [plain, batching] = await Promise.all([
      startLocalChain({ payers: 0 }),
      startLocalChain({ payers: 1, settler: true }),
    ])
    const rpc = makeChainRpc({ rpcUrl: batching.rpcUrl })
    try {
      expect(plain.settlerAddress).to.equal(undefined)
      const settler = batching.settlerAddress!
      expect(settler).to.match(/^0x[0-9a-f]{40}$/)
      const view = async (functionName: 'token' | 'owner' | 'isSettler', args: ReadonlyArray<Address> = []) => {
        const data = (await rpc.read('eth_call', [
          { to: settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName, args: args as never }) },
          'latest',
        ])) as Hex
        return String(decodeFunctionResult({ abi: batchSettlerAbi, functionName, data })).toLowerCase()
      }
      expect(await view('token')).to.equal(batching.tokenAddress)
      expect(await view('owner')).to.equal(batching.facilitator.address)
      expect(await view('isSettler', [batching.facilitator.address])).to.equal('true')
      expect(await view('isSettler', [batching.payers[0]!.address])).to.equal('false')
    } finally {
      rpc.close()
      await Promise.all([plain.stop(), batching.stop()])
    }
  })

  it('two chains at once get distinct ports', async () => {
    const [a, b] = await Promise.all([startAnvil(), startAnvil()])
    try {
      expect(a.port).to.not.equal(b.port)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
