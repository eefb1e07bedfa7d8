#!/usr/bin/env node
// `node bench/rpc-transport.mjs [--reads N] [--concurrency C] [--rounds R]`: CPU time of this process per JSON-RPC read,
// through the package's hand-written client (`makeChainRpc().read`) and through viem's `http` transport with batching,
// at the same concurrency, against a local anvil (the figure quoted in packages/adapters-chain/src/chain-rpc.ts).
// Run `npm run build` first: the client comes from the package's dist.
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { makeChainRpc } from '@x402-facilitator/adapters-chain'
import { startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { createPublicClient, encodeFunctionData, erc20Abi, http } from 'viem'

const { values } = parseArgs({
  options: {
    reads: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
  },
})
const reads = Number(values.reads)
const concurrency = Number(values.concurrency)
const rounds = Number(values.rounds)

/** `count` reads, `concurrency` in flight (each worker waits for its answer): alternately an eth_call and a nonce. */
const load = async (request, count, calls) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const [method, params] = calls[next++ % calls.length]
        await request(method, params)
      }
    }),
  )
}

/** CPU time of this process (user + system, every thread) per read, and reads per second of wall time. */
const measure = async (request, calls) => {
  const wall = performance.now()
  const cpu = process.cpuUsage()
  await load(request, reads, calls)
  const used = process.cpuUsage(cpu)
  const seconds = (performance.now() - wall) / 1_000
  return { usPerRead: (used.user + used.system) / reads, perSecond: reads / seconds }
}

const chain = await startLocalChain({ payers: 1 })
const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
const viem = createPublicClient({ transport: http(chain.rpcUrl, { batch: true }) })
try {
  const payer = chain.payers[0].address
  const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [payer] })
  const calls = [
    ['eth_call', [{ to: chain.tokenAddress, data: balanceOf }, 'latest']],
    ['eth_getTransactionCount', [payer, 'latest']],
  ]
  const clients = {
    'makeChainRpc().read': (method, params) => rpc.read(method, params),
    'viem http({ batch: true })': (method, params) => viem.request({ method, params }),
  }
  // Warm-up: both clients' code compiled by the JIT before anything is timed.
  for (const request of Object.values(clients)) await load(request, 2_000, calls)

  const totals = Object.fromEntries(Object.keys(clients).map((name) => [name, []]))
  for (let round = 1; round <= rounds; round++) {
    for (const [name, request] of Object.entries(clients)) {
      const result = await measure(request, calls)
      totals[name].push(result.usPerRead)
      console.log(
        `round ${round}  ${name.padEnd(28)} ${result.usPerRead.toFixed(1).padStart(7)} µs CPU a read  ${result.perSecond.toFixed(0).padStart(6)} reads/s`,
      )
    }
  }
  const [ours, theirs] = Object.values(totals).map((list) => list.reduce((a, b) => a + b, 0) / list.length)
  console.log(`\n${reads} reads a round at concurrency ${concurrency}, mean of ${rounds} rounds:`)
  console.log(
    `  makeChainRpc().read ${ours.toFixed(1)} µs vs viem http ${theirs.toFixed(1)} µs of CPU per read: viem costs ${(theirs / ours).toFixed(1)}×`,
  )
} finally {
  rpc.close()
  await chain.stop()
}
