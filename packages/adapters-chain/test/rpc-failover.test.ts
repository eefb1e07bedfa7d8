import type { Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { numberToHex } from 'viem'
import { startAnvil, type AnvilProcess } from '../src/testing/anvil-process.js'
import { makeChainBlocks } from '../src/evm/chain-blocks.js'
import { makeChainRpc, type ChainRpc, type RpcUrlEvent } from '../src/evm/rpc/chain-rpc.js'
import { classifyRpcError, describeRpcFailure, readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { right } from './fixtures.js'
import { deadPort, startRpcProxy, type RpcProxy } from '../src/testing/rpc-proxy.js'

/** What a promise failed with, as the adapters describe it; throws when it did not fail. */
const failureOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise
  } catch (error) {
    return describeRpcFailure(classifyRpcError(error))
  }
  throw new Error('expected a failure')
}

const label = (index: number, url: string) => `#${index} (${url})`

/**
 * A failure of that URL: refused, or the connection it had lost (a closed node cuts its keep-alive sockets), named.
 */
const failedAt = (name: string) => new RegExp(`RPC ${name.replace(/[().]/g, '\\$&')}( is unreachable| failed)`)

describe('RPC failover over a network’s URLs (anvil)', () => {
  let anvil: AnvilProcess
  let other: AnvilProcess
  const opened: Array<ChainRpc | RpcProxy> = []
  before(async () => {
    ;[anvil, other] = await Promise.all([startAnvil(), startAnvil({ chainId: 31_338 })])
  })
  after(async () => {
    for (const it of opened) await it.close()
    await Promise.all([anvil?.stop(), other?.stop()])
  })
  const proxy = async (target: string, answer?: Parameters<typeof startRpcProxy>[1]) => {
    const started = await startRpcProxy(target, answer)
    opened.push(started)
    return started
  }

  it('the first URL dead: calls go through the second, which stays primary; the dead one is tried again only after its backoff', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`
    const second = await proxy(anvil.rpcUrl)
    let clock = 0
    const requests = new Map<string, number>()
    const events: RpcUrlEvent[] = []
    const rpc = makeChainRpc({
      rpcUrls: [dead, second.url],
      now: () => clock,
      backoffMs: 1_000,
      onHttpRequest: (name) => requests.set(name, (requests.get(name) ?? 0) + 1),
      onUrlEvent: (event) => events.push(event),
    })
    opened.push(rpc)
    const [first, next] = [label(1, dead), label(2, second.url)]

    expect(await readQuantity(rpc, 'eth_blockNumber')).to.be.a('bigint')
    expect(requests.get(first)).to.equal(1)
    expect(events).to.deep.equal([
      { kind: 'failed', label: first, reason: 'the RPC is unreachable (ECONNREFUSED)', retryInMs: 1_000 },
      { kind: 'primary', label: next },
    ])

    // The second dies within the first's backoff: the first is not tried, and the error names the second.
    await second.close()
    clock = 500
    expect(await failureOf(readQuantity(rpc, 'eth_blockNumber'))).to.match(failedAt(next))
    expect(requests.get(first)).to.equal(1)

    // The first's backoff is over, the second's is not (1 s from 500): the first is tried again and waits twice as long.
    await second.reopen()
    clock = 1_000
    expect(await failureOf(readQuantity(rpc, 'eth_blockNumber'))).to.equal(
      `the RPC ${first} is unreachable (ECONNREFUSED)`,
    )
    expect(requests.get(first)).to.equal(2)
    expect(events.at(-1)).to.include({ kind: 'failed', label: first, retryInMs: 2_000 })

    // The second's backoff is over: it takes over, its chain id checked again first, and keeps every call (sticky)
    // also once the first's backoff is over.
    clock = 1_500
    expect(await readQuantity(rpc, 'eth_blockNumber')).to.be.a('bigint')
    clock = 10_000
    for (let i = 0; i < 5; i++) await readQuantity(rpc, 'eth_blockNumber')
    expect(requests.get(first)).to.equal(2)
    expect(second.calls.get('eth_chainId')).to.equal(2)
    expect(second.calls.get('eth_blockNumber')).to.equal(7)
  })

  it('a URL serving another chain is never used, first in the list or standing by', async () => {
    const wrong = await proxy(other.rpcUrl)
    const good = await proxy(anvil.rpcUrl)
    const events: RpcUrlEvent[] = []
    const rpc = makeChainRpc({ rpcUrls: [wrong.url, good.url], chainId: 31_337, onUrlEvent: (e) => events.push(e) })
    opened.push(rpc)
    // At start-up every URL is checked, and the one on another chain reported.
    expect(await rpc.checkUrls()).to.deep.equal([
      {
        label: label(1, wrong.url),
        chainId: 31_338,
        problem: `the RPC ${label(1, wrong.url)} serves chain 31338, not 31337: it is not used`,
      },
      { label: label(2, good.url), chainId: 31_337 },
    ])
    expect(await readQuantity(rpc, 'eth_chainId')).to.equal(31_337n)
    for (let i = 0; i < 3; i++) await readQuantity(rpc, 'eth_blockNumber')
    expect([...wrong.calls]).to.deep.equal([['eth_chainId', 1]])
    expect(events[0]).to.deep.equal({
      kind: 'wrong-chain',
      label: label(1, wrong.url),
      chainId: 31_338,
      expected: 31_337,
    })
    // The good one dies: the wrong one is still not used.
    await good.close()
    expect(await failureOf(readQuantity(rpc, 'eth_blockNumber'))).to.match(failedAt(label(2, good.url)))
    expect([...wrong.calls]).to.deep.equal([['eth_chainId', 1]])

    // No chain id given: the first URL checked sets it, and a standby on another chain is refused when its turn comes.
    await good.reopen()
    const standby = await proxy(other.rpcUrl)
    const unset = makeChainRpc({ rpcUrls: [good.url, standby.url] })
    opened.push(unset)
    expect(await readQuantity(unset, 'eth_chainId')).to.equal(31_337n)
    await good.close()
    expect(await failureOf(readQuantity(unset, 'eth_blockNumber'))).to.match(
      new RegExp(`${label(2, standby.url).replace(/[()]/g, '\\$&')} serves chain 31338, not 31337`),
    )
    expect([...standby.calls]).to.deep.equal([['eth_chainId', 1]])

    // At start-up, no chain id given: the first URL sets it, whichever answers first.
    await good.reopen()
    const atStart = makeChainRpc({ rpcUrls: [good.url, standby.url] })
    opened.push(atStart)
    expect((await atStart.checkUrls()).map((status) => [status.chainId, status.problem === undefined])).to.deep.equal([
      [31_337, true],
      [31_338, false],
    ])
  })

  it('a lagging node (lower head, no block above it) is not taken for a reorg; another hash at a height is one', async () => {
    await anvilMine(anvil.rpcUrl, 10)
    const primary = await proxy(anvil.rpcUrl)
    const lagBy = 4n
    let lagHead = 0n
    // A node behind the chain: its head is 4 blocks lower and it has no block above it.
    const lagging = await proxy(anvil.rpcUrl, (call) => {
      if (call.method === 'eth_blockNumber') return { result: numberToHex(lagHead) }
      if (call.method === 'eth_getBlockByNumber' && BigInt(call.params[0] as string) > lagHead) return { result: null }
      return undefined
    })
    const rpc = makeChainRpc({ rpcUrls: [primary.url, lagging.url] })
    opened.push(rpc)
    const blocks = makeChainBlocks(rpc)
    const head = await right(blocks.head)
    lagHead = head - lagBy
    const heights = [head - 6n, head - 1n, head]
    const recorded = await right(blocks.hashesAt(heights))
    expect(recorded.size).to.equal(3)

    await primary.close()
    expect(await right(blocks.head)).to.equal(lagHead)
    const seen = await right(blocks.hashesAt(heights))
    // The heights the node does not have are left out (a block not judged), the one it has is the same block.
    expect([...seen]).to.deep.equal([[head - 6n, recorded.get(head - 6n)]])
    expect(lagging.calls.get('eth_getBlockByNumber')).to.equal(3)

    // A node that answers another hash at a height does report the block replaced.
    const otherHash: Hex = `0x${'ab'.repeat(32)}`
    const forked = await proxy(anvil.rpcUrl, (call) =>
      call.method === 'eth_getBlockByNumber' ? { result: { number: call.params[0], hash: otherHash } } : undefined,
    )
    const forkedBlocks = makeChainBlocks(makeChainRpc({ rpcUrls: [forked.url] }))
    expect([...(await right(forkedBlocks.hashesAt([head - 6n])))]).to.deep.equal([[head - 6n, otherHash]])
  })
})

const anvilMine = async (rpcUrl: string, blocks: number) => {
  const rpc = makeChainRpc({ rpcUrl })
  try {
    await rpc.write('anvil_mine', [numberToHex(blocks)])
  } finally {
    rpc.close()
  }
}
