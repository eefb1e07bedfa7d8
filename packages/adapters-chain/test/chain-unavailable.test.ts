import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { createServer } from 'node:net'
import { makeChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { authorizationFrom, left, randomNonce, right, signedBy } from './fixtures.js'

const BOUND_MS = 1_000
const payee: Address = '0x00000000000000000000000000000000000000ee'

const elapsed = async <A>(run: () => Promise<A>): Promise<[A, number]> => {
  const t = performance.now()
  const result = await run()
  return [result, performance.now() - t]
}

describe('ChainUnavailable within the bound (anvil)', () => {
  let chain: LocalChain
  let domain: Eip712Domain
  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    domain = await right(makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress).domain)
  })
  after(async () => {
    await chain?.stop()
  })

  it('a paused node (SIGSTOP): reads and prepares fail in time, a send is uncertain; after SIGCONT all works again', async () => {
    const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl, rpcTimeoutMs: BOUND_MS })
    const reader = makeRpcTokenReader(rpc, chain.tokenAddress)
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
    })
    const payer = chain.payers[0]!
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 1n))
    const prepared = await right(submitter.prepare(authorization, signature))
    const freshSubmitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
    })

    // Each gives up on the RPC's bound (not before it; mocha's timeout would catch one that never did) and says why.
    await chain.pause()
    try {
      for (const [what, failure] of [
        ['a read', () => left(reader.payerState(payer.address, randomNonce()))],
        ['the domain', () => left(makeRpcTokenReader(rpc, chain.tokenAddress).domain)],
        ['a prepare', () => left(freshSubmitter.prepare(authorization, signature))],
        ['the mined nonce', () => left(submitter.minedNonce(submitter.address))],
      ] as const) {
        const [unavailable, ms] = await elapsed(failure)
        expect(unavailable, what).to.include({ _tag: 'ChainUnavailable' })
        expect(unavailable.reason, what).to.match(/did not answer in time/)
        expect(ms, what).to.be.at.least(BOUND_MS - 50)
      }
      const [send, sendMs] = await elapsed(() => left(submitter.send(prepared, 5_000)))
      expect(send).to.deep.equal({ _tag: 'SendUncertain', reason: 'the RPC did not answer in time' })
      expect(sendMs).to.be.at.least(BOUND_MS - 50)
    } finally {
      chain.resume()
    }
    expect((await right(reader.payerState(payer.address, randomNonce()))).balance > 0n).to.equal(true)
    // The uncertain send may or may not have reached the node: the stored bytes settle it either way.
    await submitter.rebroadcast(prepared.raw, submitter.address)()
    const next = await signedBy(payer, domain, authorizationFrom(payer, payee, 2n))
    const again = await right(freshSubmitter.prepare(next.authorization, next.signature))
    expect((await right(freshSubmitter.send(again, 10_000)))._tag).to.equal('Mined')
  })

  it('an absent node: ChainUnavailable naming it unreachable (no wait for a timeout), and a send is rejected (nothing left the process)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    const rpc = makeChainRpc({ rpcUrl: `http://127.0.0.1:${port}`, rpcTimeoutMs: BOUND_MS })
    const state = await left(makeRpcTokenReader(rpc, chain.tokenAddress).payerState(payee, randomNonce()))
    expect(state.reason).to.match(/unreachable \(ECONNREFUSED\)/)
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
      chainId: 31337,
    })
    expect((await left(submitter.minedNonce(submitter.address)))._tag).to.equal('ChainUnavailable')
    const payer = chain.payers[0]!
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 1n))
    expect((await left(submitter.prepare(authorization, signature)))._tag).to.equal('ChainUnavailable')
  })
})
