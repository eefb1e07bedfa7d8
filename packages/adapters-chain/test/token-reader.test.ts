import type { Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { makeChainRpc } from '../src/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/local-chain.js'
import { makeViemTokenReader } from '../src/viem-token-reader.js'
import { randomNonce, right } from './fixtures.js'

describe('ViemTokenReader (anvil)', () => {
  let chain: LocalChain
  before(async () => {
    chain = await startLocalChain({ payers: 2, payerBalance: 5_000_000n })
  })
  after(async () => {
    await chain?.stop()
  })

  it('reads the EIP-712 domain (EIP-5267) once and keeps it', async () => {
    let requests = 0
    const reader = makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }), chain.tokenAddress)
    const [first, second] = await Promise.all([right(reader.domain), right(reader.domain)])
    expect(first).to.deep.equal({ name: 'Demo USD', version: '2', chainId: 31337n, verifyingContract: chain.tokenAddress })
    expect(second).to.deep.equal(first)
    await right(reader.domain)
    expect(requests).to.equal(1)
    expect(await right(reader.tokenInfo)).to.deep.equal({ address: chain.tokenAddress, symbol: 'DUSD', decimals: 6 })
  })

  it('reads balance and authorization state in one round trip', async () => {
    let requests = 0
    const reader = makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }), chain.tokenAddress)
    const payer = chain.payers[0]!
    expect(await right(reader.payerState(payer.address, randomNonce()))).to.deep.equal({ balance: 5_000_000n, authorizationUsed: false })
    expect(requests).to.equal(1)
    const stranger = '0x00000000000000000000000000000000000000aa' as Address
    expect(await right(reader.payerState(stranger, randomNonce()))).to.deep.equal({ balance: 0n, authorizationUsed: false })
  })

  it('coalesces concurrent reads into few HTTP requests', async () => {
    let requests = 0
    const reader = makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ }), chain.tokenAddress)
    const states = await Promise.all(Array.from({ length: 200 }, () => right(reader.payerState(chain.payers[1]!.address, randomNonce()))))
    expect(states.every((s) => s.balance === 5_000_000n && !s.authorizationUsed)).to.equal(true)
    // 400 eth_calls; the batch size is 500.
    expect(requests).to.equal(1)
  })

  it('falls back to name() and version "2" for a token without eip712Domain()', async () => {
    // Not a contract at all: eip712Domain() returns nothing, name() too, so the reader says what is wrong.
    const reader = makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), '0x00000000000000000000000000000000000000bb')
    const result = await reader.domain()
    expect(result._tag).to.equal('Left')
    expect(result._tag === 'Left' && result.left.reason).to.match(/has no name\(\)/)
  })
})
