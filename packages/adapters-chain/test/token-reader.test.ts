import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { RpcRequestError } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { authorizationFrom, randomNonce, right, signedBy } from './fixtures.js'

/** The RPC access, counting the `eth_call`s asked of it. */
const countingCalls = (rpc: ChainRpc) => {
  const counted = {
    calls: 0,
    rpc: {
      ...rpc,
      read: (method: string, params?: ReadonlyArray<unknown>) => (
        method === 'eth_call' && counted.calls++,
        rpc.read(method, params)
      ),
    },
  }
  return counted
}

describe('RpcTokenReader (anvil)', () => {
  let chain: LocalChain
  before(async () => {
    chain = await startLocalChain({ payers: 2, payerBalance: 5_000_000n })
  })
  after(async () => {
    await chain?.stop()
  })

  it('reads the EIP-712 domain (EIP-5267) once and keeps it', async () => {
    let requests = 0
    const reader = makeRpcTokenReader(
      makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }),
      chain.tokenAddress,
    )
    const [first, second] = await Promise.all([right(reader.domain), right(reader.domain)])
    expect(first).to.deep.equal({
      name: 'Demo USD',
      version: '2',
      chainId: 31337n,
      verifyingContract: chain.tokenAddress,
    })
    expect(second).to.deep.equal(first)
    await right(reader.domain)
    expect(requests).to.equal(1)
    expect(await right(reader.tokenInfo)).to.deep.equal({ address: chain.tokenAddress, symbol: 'DUSD', decimals: 6 })
  })

  it('reads balance and authorization state in one round trip', async () => {
    let requests = 0
    const reader = makeRpcTokenReader(
      makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }),
      chain.tokenAddress,
    )
    const payer = chain.payers[0]!
    expect(await right(reader.payerState(payer.address, randomNonce()))).to.deep.equal({
      balance: 5_000_000n,
      authorizationUsed: false,
    })
    expect(requests).to.equal(1)
    const stranger: Address = '0x00000000000000000000000000000000000000aa'
    expect(await right(reader.payerState(stranger, randomNonce()))).to.deep.equal({
      balance: 0n,
      authorizationUsed: false,
    })
  })

  it('coalesces concurrent reads into few HTTP requests', async () => {
    let requests = 0
    const reader = makeRpcTokenReader(
      makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }),
      chain.tokenAddress,
    )
    const states = await Promise.all(
      Array.from({ length: 200 }, () => right(reader.payerState(chain.payers[1]!.address, randomNonce()))),
    )
    expect(states.every((s) => s.balance === 5_000_000n && !s.authorizationUsed)).to.equal(true)
    // 400 eth_calls; the batch size is 500.
    expect(requests).to.equal(1)
  })

  it('falls back to name() and version "2" for a token without eip712Domain()', async () => {
    // Not a contract at all: eip712Domain() returns nothing, name() too, so the reader says what is wrong.
    const reader = makeRpcTokenReader(
      makeChainRpc({ rpcUrl: chain.rpcUrl }),
      '0x00000000000000000000000000000000000000bb',
    )
    const result = await reader.domain()
    expect(result._tag).to.equal('Left')
    expect(result._tag === 'Left' && result.left.reason).to.match(/has no name\(\)/)
  })

  it('reads the pairs of one tick with one deployless call, as the two calls each would; a token that is no contract fails each', async () => {
    const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    const payer = chain.payers[0]!
    const domain = await right(makeRpcTokenReader(rpc, chain.tokenAddress).domain)
    const used = await signedBy(
      payer,
      domain,
      authorizationFrom(payer, '0x00000000000000000000000000000000000000ee', 7n),
    )
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
    })
    const prepared = await right(submitter.prepare(used.authorization, used.signature))
    expect((await right(submitter.send(prepared, 10_000)))._tag).to.equal('Mined')

    const stranger: Address = '0x00000000000000000000000000000000000000aa'
    const pairs: Array<[Address, `0x${string}`]> = [
      [payer.address, used.authorization.nonce],
      [payer.address, randomNonce()],
      [chain.payers[1]!.address, randomNonce()],
      [stranger, randomNonce()],
    ]
    const deployless = countingCalls(rpc)
    const reader = makeRpcTokenReader(deployless.rpc, chain.tokenAddress)
    const oneCall = await Promise.all(pairs.map(([p, n]) => right(reader.payerState(p, n))))
    const separate = countingCalls(rpc)
    const perPair = makeRpcTokenReader(separate.rpc, chain.tokenAddress, { deploylessReads: false })
    const twoCalls = await Promise.all(pairs.map(([p, n]) => right(perPair.payerState(p, n))))
    expect(oneCall).to.deep.equal([
      { balance: 5_000_000n - 7n, authorizationUsed: true },
      { balance: 5_000_000n - 7n, authorizationUsed: false },
      { balance: 5_000_000n, authorizationUsed: false },
      { balance: 0n, authorizationUsed: false },
    ])
    expect(twoCalls).to.deep.equal(oneCall)
    expect(deployless.calls).to.equal(1)
    expect(separate.calls).to.equal(2 * pairs.length)

    const notAToken = makeRpcTokenReader(rpc, stranger)
    const failed = await Promise.all([
      notAToken.payerState(payer.address, randomNonce())(),
      notAToken.payerState(payer.address, randomNonce())(),
    ])
    for (const result of failed)
      expect(result._tag === 'Left' && result.left.reason).to.match(/did not answer balanceOf\/authorizationState/)
  })

  it('a node that refuses init code in eth_call: two calls per pair from then on, the same answers', async () => {
    const real = makeChainRpc({ rpcUrl: chain.rpcUrl })
    let refused = 0
    const refusing: ChainRpc = {
      ...real,
      read: (method, params) => {
        if (method === 'eth_call' && (params?.[0] as { to?: string }).to === undefined) {
          refused++
          const error = { code: -32000, message: 'contract creation is not allowed in eth_call' }
          return Promise.reject(new RpcRequestError({ body: { method, params }, error, url: real.rpcUrl }))
        }
        return real.read(method, params)
      },
    }
    const reader = makeRpcTokenReader(refusing, chain.tokenAddress)
    for (let round = 0; round < 2; round++) {
      const states = await Promise.all(
        [1, 2, 3].map(() => right(reader.payerState(chain.payers[1]!.address, randomNonce()))),
      )
      expect(states).to.deep.equal([1, 2, 3].map(() => ({ balance: 5_000_000n, authorizationUsed: false })))
    }
    expect(refused).to.equal(1)
  })
})
