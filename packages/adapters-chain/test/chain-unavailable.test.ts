import type { Address, Eip712Domain } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { createServer } from 'node:net'
import { makeChainRpc } from '../src/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/local-chain.js'
import { makeViemTokenReader } from '../src/viem-token-reader.js'
import { makeViemTransferSubmitter } from '../src/viem-transfer-submitter.js'
import { authorizationFrom, left, randomNonce, right, signedBy } from './fixtures.js'

const BOUND_MS = 1_000
const payee = '0x00000000000000000000000000000000000000ee' as Address

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
    domain = await right(makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress).domain)
  })
  after(async () => {
    await chain?.stop()
  })

  it('a paused node (SIGSTOP): reads and prepares fail in time, a send is uncertain; after SIGCONT all works again', async () => {
    const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl, rpcTimeoutMs: BOUND_MS })
    const reader = makeViemTokenReader(rpc, chain.tokenAddress)
    const submitter = makeViemTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey })
    const payer = chain.payers[0]!
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 1n))
    const prepared = await right(submitter.prepare(authorization, signature))
    const freshSubmitter = makeViemTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey })

    await chain.pause()
    try {
      const [state, readMs] = await elapsed(() => left(reader.payerState(payer.address, randomNonce())))
      expect(state._tag).to.equal('ChainUnavailable')
      expect(state.reason).to.match(/did not answer in time/)
      expect(readMs).to.be.within(BOUND_MS - 50, BOUND_MS + 500)
      const [domainRead, domainMs] = await elapsed(() => left(makeViemTokenReader(rpc, chain.tokenAddress).domain))
      expect(domainRead._tag).to.equal('ChainUnavailable')
      expect(domainMs).to.be.below(BOUND_MS + 500)
      const [prepare, prepareMs] = await elapsed(() => left(freshSubmitter.prepare(authorization, signature)))
      expect(prepare._tag).to.equal('ChainUnavailable')
      expect(prepareMs).to.be.below(BOUND_MS + 500)
      const [mined, minedMs] = await elapsed(() => left(submitter.minedNonce(submitter.address)))
      expect(mined._tag).to.equal('ChainUnavailable')
      expect(minedMs).to.be.below(BOUND_MS + 500)
      const [send, sendMs] = await elapsed(() => left(submitter.send(prepared, 5_000)))
      expect(send._tag).to.equal('SendUncertain')
      expect(sendMs).to.be.below(BOUND_MS + 500)
    } finally {
      chain.resume()
    }
    expect((await right(reader.payerState(payer.address, randomNonce()))).balance > 0n).to.equal(true)
    // The uncertain send may or may not have reached the node: the stored bytes settle it either way.
    await submitter.rebroadcast(prepared.raw)()
    const next = await signedBy(payer, domain, authorizationFrom(payer, payee, 2n))
    const again = await right(freshSubmitter.prepare(next.authorization, next.signature))
    expect((await right(freshSubmitter.send(again, 10_000)))._tag).to.equal('Mined')
  })

  it('an absent node: ChainUnavailable at once, and a send is rejected (nothing left the process)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    const rpc = makeChainRpc({ rpcUrl: `http://127.0.0.1:${port}`, rpcTimeoutMs: BOUND_MS })
    const [state, ms] = await elapsed(() => left(makeViemTokenReader(rpc, chain.tokenAddress).payerState(payee, randomNonce())))
    expect(state.reason).to.match(/unreachable \(ECONNREFUSED\)/)
    expect(ms).to.be.below(500)
    const submitter = makeViemTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey, chainId: 31337 })
    expect((await left(submitter.minedNonce(submitter.address)))._tag).to.equal('ChainUnavailable')
    const payer = chain.payers[0]!
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 1n))
    expect((await left(submitter.prepare(authorization, signature)))._tag).to.equal('ChainUnavailable')
  })
})
