import type { EvmAddress as Address, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { encodeFunctionData, parseAbi } from 'viem'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { permit2Abi } from '../src/testing/index.js'
import { mined } from './demo-token-calls.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import { officialPermit2Payload, permit2AuthorizationOf } from './permit2-payments.js'

const minedReceipt = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error('not mined')
  return outcome.receipt
}

const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)'])

// How a Permit2 nonce ended, told by the chain: no per-nonce event exists, so a use is a token Transfer whose
// transaction is a proxy call with the nonce, and a cancellation is Permit2's UnorderedNonceInvalidation.
describe('RpcTokenReader: how a Permit2 nonce ended (anvil)', () => {
  const t = permit2Chain(10_000_000n)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'
  let reader: RpcTokenReader
  before(() => {
    reader = makeRpcTokenReader(t.rpc, t.dusdt.address, { permit2: t.suite })
  })
  const latest = () => readQuantity(t.rpc, 'eth_blockNumber')

  it('used: finds the proxy call carrying the nonce, not a plain transfer between the same accounts', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[0]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: dusdt.address,
      amount: 10n,
      payTo,
    })
    const authorization = permit2AuthorizationOf('exact', signed)
    const plain = encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [payTo, 10n] })
    await mined(rpc, { from: payer.address, to: dusdt.address, data: plain })
    expect(await right(reader.authorizationUsedBy(authorization, new Date(), await latest()))).to.deep.equal(O.none)

    const submitter = makeRpcTransferSubmitter({ rpc, token: dusdt.address, privateKey: chain.facilitator.privateKey })
    const prepared = await right(submitter.prepare(authorization, signed.signature))
    const receipt = minedReceipt(await right(submitter.send(prepared, 20_000)))
    const used = await right(reader.authorizationUsedBy(authorization, new Date(), await latest()))
    expect(O.isSome(used) && used.value.txHash).to.equal(prepared.txHash)
    expect(O.isSome(used) && used.value.blockNumber).to.equal(receipt.blockNumber)
    const ended = await right(reader.authorizationEndedBy(authorization, new Date()))
    expect(O.isSome(ended) && ended.value).to.include({ how: 'used', txHash: prepared.txHash })
    // A payment of another amount with this nonce (the payer's other permit) was not paid by it.
    const another = { ...authorization, value: authorization.value + 1n }
    expect(await right(reader.authorizationUsedBy(another, new Date(), await latest()))).to.deep.equal(O.none)
  })

  it('cancelled: Permit2 invalidateUnorderedNonces by the owner with the nonce bit', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[1]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: dusdt.address,
      amount: 10n,
      payTo,
    })
    const authorization = permit2AuthorizationOf('exact', signed)
    const nonce = BigInt(authorization.nonce)
    expect(await right(reader.authorizationEndedBy(authorization, new Date()))).to.deep.equal(O.none)
    // Another bit of the same word first: not this nonce.
    const invalidate = (mask: bigint) =>
      mined(rpc, {
        from: payer.address,
        to: suite.permit2,
        data: encodeFunctionData({
          abi: permit2Abi,
          functionName: 'invalidateUnorderedNonces',
          args: [nonce >> 8n, mask],
        }),
      })
    await invalidate(1n << ((nonce + 1n) & 0xffn))
    expect(await right(reader.authorizationEndedBy(authorization, new Date()))).to.deep.equal(O.none)
    const receipt = await invalidate(1n << (nonce & 0xffn))
    const ended = await right(reader.authorizationEndedBy(authorization, new Date()))
    expect(O.isSome(ended) && ended.value).to.include({
      how: 'cancelled',
      txHash: (receipt as { transactionHash: string }).transactionHash,
    })
    expect(await right(reader.authorizationUsedBy(authorization, new Date(), await latest()))).to.deep.equal(O.none)
  })
})
