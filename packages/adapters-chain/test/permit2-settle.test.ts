import type { Address, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { parseTransaction } from 'viem'
import { decodePermit2Call } from '../src/permit2-call.js'
import { PERMIT2_SETTLE_GAS_LIMIT } from '../src/transfer-gas-limit.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/rpc-transfer-submitter.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import { balanceOf, officialPermit2Payload, permit2AuthorizationOf, transfersIn } from './permit2-payments.js'

const PAYER_UNITS = 10_000_000n

const minedReceipt = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error('not mined')
  return outcome.receipt
}

// The submitter's Permit2 settle (permit2-call.ts): the proxy the permit names, called with the row's amount.
describe('RpcTransferSubmitter: Permit2 payments of DUSDT (anvil)', () => {
  const t = permit2Chain(PAYER_UNITS)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'
  let submitter: RpcTransferSubmitter
  before(() => {
    submitter = makeRpcTransferSubmitter({
      rpc: t.rpc,
      token: t.dusdt.address,
      privateKey: t.chain.facilitator.privateKey,
    })
  })

  it('exact: one transaction to the exact proxy moves the amount once, its receipt judged paid', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[0]!
    const amount = 1_234_567n
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, { token: dusdt.address, amount, payTo })
    const authorization = permit2AuthorizationOf('exact', signed)
    const before = await balanceOf(rpc, dusdt.address, payTo)

    const prepared = await right(submitter.prepare(authorization, signed.signature))
    const receipt = minedReceipt(await right(submitter.send(prepared, 20_000)))
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(receipt.gasUsed < PERMIT2_SETTLE_GAS_LIMIT).to.equal(true)
    const tx = await rpc.read('eth_getTransactionReceipt', [prepared.txHash])
    expect(transfersIn(tx, dusdt.address)).to.deep.equal([{ from: payer.address, to: payTo, value: amount }])
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before + amount)

    // The same payment sent again: Permit2's nonce is used, the second transaction moves nothing.
    const again = await right(submitter.prepare(authorization, signed.signature))
    const second = minedReceipt(await right(submitter.send(again, 20_000)))
    expect(second.succeeded).to.equal(false)
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before + amount)
  })

  it('upto: sends exactly the amount asked (less than the maximum) from the witness key', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[1]!
    const maximum = 900_000n
    const asked = 345_678n
    const signed = await officialPermit2Payload('upto', payer, suite.chainId, {
      token: dusdt.address,
      amount: maximum,
      payTo,
      facilitator: chain.facilitator.address,
    })
    const authorization = permit2AuthorizationOf('upto', signed, asked)
    const before = await balanceOf(rpc, dusdt.address, payTo)
    const prepared = await right(submitter.prepare(authorization, signed.signature))
    const receipt = minedReceipt(await right(submitter.send(prepared, 20_000)))
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(receipt.gasUsed < PERMIT2_SETTLE_GAS_LIMIT).to.equal(true)
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before + asked)

    // A fee replacement carries the same call: the same amount, never the maximum.
    const replacement = await right(submitter.prepareReplacement(prepared))
    expect(replacement._tag).to.equal('Prepared')
    if (replacement._tag !== 'Prepared') return
    const data = parseTransaction(replacement.transfer.raw).data!
    expect(data).to.equal(parseTransaction(prepared.raw).data)
    expect(decodePermit2Call(data)?.amount).to.equal(asked)
  })
})
