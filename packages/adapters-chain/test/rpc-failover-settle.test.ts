import type { EvmAddress as Address, Eip712Domain, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { keccak256 } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { deployCircleUsdc, type CircleUsdc } from '../src/testing/index.js'
import { authorizationFrom, randomNonce, right, signedBy } from './fixtures.js'
import { startRpcProxy, type ProxyAnswer, type RpcProxy } from '../src/testing/rpc-proxy.js'

const VALUE = 1_250_000n

// docs/ARCHITECTURE.md §5.3 (RPC failover): a network's first URL fails between a broadcast and its receipt; the payment
// settles exactly once through the second, on Circle's USDC.
describe('RPC failover between a broadcast and its receipt (anvil, Circle USDC)', () => {
  let chain: LocalChain
  let setup: ChainRpc
  let usdc: CircleUsdc
  let reader: RpcTokenReader
  let domain: Eip712Domain
  const closing: Array<ChainRpc | RpcProxy> = []
  before(async () => {
    chain = await startLocalChain({ payers: 2 })
    setup = makeChainRpc({ rpcUrl: chain.rpcUrl })
    usdc = await deployCircleUsdc(setup)
    for (const payer of chain.payers) await usdc.mint(payer.address, 1_000_000_000n)
    reader = makeRpcTokenReader(setup, usdc.address)
    domain = await right(reader.domain)
  })
  after(async () => {
    for (const it of closing) await it.close()
    setup?.close()
    await chain?.stop()
  })

  /** A submitter over [the first URL (a proxy acting as `first`), the second URL (a counting proxy of the node)]. */
  const overTwoUrls = async (first: ProxyAnswer) => {
    const [dying, second] = await Promise.all([startRpcProxy(chain.rpcUrl, first), startRpcProxy(chain.rpcUrl)])
    const rpc = makeChainRpc({ rpcUrls: [dying.url, second.url], rpcTimeoutMs: 5_000 })
    closing.push(dying, second, rpc)
    const submitter = makeRpcTransferSubmitter({ rpc, token: usdc.address, privateKey: chain.facilitator.privateKey })
    return { dying, second, submitter }
  }

  const payment = async (payerIndex: number, payee: Address) => {
    const payer = chain.payers[payerIndex]!
    const nonce = randomNonce()
    const signed = await signedBy(payer, domain, authorizationFrom(payer, payee, VALUE, nonce))
    const before = await right(reader.payerState(payer.address, nonce))
    const paid = async () => {
      const [from, to] = await Promise.all([
        right(reader.payerState(payer.address, nonce)),
        right(reader.payerState(payee, randomNonce())),
      ])
      return { spent: before.balance - from.balance, received: to.balance, used: from.authorizationUsed }
    }
    return { ...signed, paid }
  }

  it('the first URL took the transaction and died before passing it on: it is sent again through the second, mined once', async () => {
    const { dying, second, submitter } = await overTwoUrls((call) =>
      call.method === 'eth_sendRawTransaction'
        ? { result: keccak256(call.params[0] as Hex), thenDie: true }
        : undefined,
    )
    const payee: Address = '0x00000000000000000000000000000000000000c1'
    const { authorization, signature, paid } = await payment(0, payee)
    const prepared = await right(submitter.prepare(authorization, signature))
    const outcome = await right(submitter.send(prepared, 20_000))

    expect(outcome._tag).to.equal('Mined')
    if (outcome._tag === 'Mined') expect(outcome.receipt).to.include({ txHash: prepared.txHash, succeeded: true })
    expect(dying.calls.get('eth_sendRawTransaction')).to.equal(1)
    expect(second.calls.get('eth_sendRawTransaction')).to.equal(1)
    expect(await paid()).to.deep.equal({ spent: VALUE, received: VALUE, used: true })
    // Recovery's re-send of the stored bytes moves nothing more.
    await submitter.rebroadcast(prepared.raw, submitter.address)()
    expect(await paid()).to.deep.equal({ spent: VALUE, received: VALUE, used: true })
  })

  it('the first URL passed the transaction on and died before answering: the second’s refusal does not make it refused', async () => {
    const { dying, second, submitter } = await overTwoUrls((call) =>
      call.method === 'eth_sendRawTransaction' ? 'forward, then die' : undefined,
    )
    const payee: Address = '0x00000000000000000000000000000000000000c2'
    const { authorization, signature, paid } = await payment(1, payee)
    const prepared = await right(submitter.prepare(authorization, signature))
    const sent = await submitter.send(prepared, 20_000)()

    // The node mined it from the first URL; the same bytes through the second are "nonce too low" there, which says
    // nothing of this send: it stays uncertain (the nonce spent, recovery finds the receipt), or is seen mined.
    expect(dying.calls.get('eth_sendRawTransaction')).to.equal(1)
    expect(second.calls.get('eth_sendRawTransaction')).to.equal(1)
    if (sent._tag === 'Left') expect(sent.left._tag).to.equal('SendUncertain')
    else expect(sent.right._tag).to.equal('Mined')
    const receipt = await right(submitter.receiptOf([prepared.txHash]))
    expect(receipt._tag === 'Some' && receipt.value).to.include({ txHash: prepared.txHash, succeeded: true })
    expect(await paid()).to.deep.equal({ spent: VALUE, received: VALUE, used: true })
  })
})
