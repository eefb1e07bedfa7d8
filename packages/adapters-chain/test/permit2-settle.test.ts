import type { EvmAddress as Address, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { parseEventLogs, parseTransaction, type Log } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { decodePermit2Call } from '../src/evm/permit2/permit2-call.js'
import { PERMIT2_SETTLE_GAS_LIMIT } from '../src/evm/submission/transfer-gas-limit.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { fieldOf } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { demoUsdtAbi, deployDemoUsdt } from '../src/testing/index.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import {
  balanceOf,
  officialPermit2Payload,
  permit2AuthorizationOf,
  signDemoUsdtPermit,
  transfersIn,
} from './permit2-payments.js'

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

  it('upto: a transaction from another key than the witness facilitator is mined reverted UnauthorizedFacilitator, nothing moves', async () => {
    const { chain, rpc, suite, dusdt } = t
    const signed = await officialPermit2Payload('upto', chain.payers[0]!, suite.chainId, {
      token: dusdt.address,
      amount: 5_000n,
      payTo,
      facilitator: chain.facilitator.address,
    })
    const other = makeRpcTransferSubmitter({ rpc, token: dusdt.address, privateKey: chain.payers[1]!.privateKey })
    const before = await balanceOf(rpc, dusdt.address, payTo)
    const prepared = await right(other.prepare(permit2AuthorizationOf('upto', signed, 1_000n), signed.signature))
    const receipt = minedReceipt(await right(other.send(prepared, 20_000)))
    expect(receipt.succeeded).to.equal(false)
    expect(receipt.revertReason).to.match(/^UnauthorizedFacilitator\(\)/)
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before)
  })

  it('a sponsored EIP-2612 permit: a payer who never approved Permit2 pays in one transaction (Approval and Transfer)', async () => {
    const { chain, rpc, suite } = t
    const payer = chain.payers[0]!
    const bare = await deployDemoUsdt(rpc, { payers: [payer.address], units: 80_000n })
    const amount = 12_345n
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, { token: bare.address, amount, payTo })
    const deadline = BigInt(signed.permit2Authorization.deadline)
    const permitSignature = await signDemoUsdtPermit(payer, suite.chainId, bare.address, {
      spender: suite.permit2,
      value: amount,
      nonce: 0n,
      deadline,
    })
    const authorization = permit2AuthorizationOf('exact', signed, undefined, {
      value: amount,
      nonce: 0n,
      deadline,
      signature: permitSignature,
    })
    const reader = makeRpcTokenReader(rpc, bare.address, { facilitator: chain.facilitator.address, permit2: suite })
    const trial = await right(reader.trialPayment(authorization, signed.signature))
    expect(trial.permit2Allowance).to.equal(0n)
    if (trial.transfer._tag !== 'WouldSucceed') throw new Error(`trial: ${JSON.stringify(trial.transfer)}`)

    // Its own key: two allocators on one key would (rightly) trip over each other's nonces.
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0xde0b6b3a7640000'])
    const sponsored = makeRpcTransferSubmitter({ rpc, token: bare.address, privateKey: key })
    const prepared = await right(sponsored.prepare(authorization, signed.signature, trial.transfer.gasUsed))
    const receipt = minedReceipt(await right(sponsored.send(prepared, 20_000)))
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(receipt.gasUsed < PERMIT2_SETTLE_GAS_LIMIT).to.equal(true)
    const raw = await rpc.read('eth_getTransactionReceipt', [prepared.txHash])
    const events = parseEventLogs({ abi: demoUsdtAbi, logs: fieldOf(raw, 'logs') as Log[] }).map((e) => e.eventName)
    expect(events).to.include.members(['Approval', 'Transfer'])
    expect(transfersIn(raw, bare.address)).to.deep.equal([{ from: payer.address, to: payTo, value: amount }])
    expect(await balanceOf(rpc, bare.address, payTo)).to.equal(amount)
  })

  it('a Permit2 transaction that succeeded without the token’s Transfer of the amount is not judged paid', async () => {
    const { chain, rpc, suite, dusdt } = t
    const payer = chain.payers[1]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: dusdt.address,
      amount: 77n,
      payTo,
    })
    const prepared = await right(submitter.prepare(permit2AuthorizationOf('exact', signed), signed.signature))
    expect(minedReceipt(await right(submitter.send(prepared, 20_000))).succeeded).to.equal(true)
    // Judged for another token (the one a misconfigured route would serve): its Transfer is not in the receipt.
    const other = await deployDemoUsdt(rpc, { payers: [], units: 0n })
    const judge = makeRpcTransferSubmitter({ rpc, token: other.address, privateKey: chain.payers[0]!.privateKey })
    const receipt = await right(judge.receiptOf([prepared.txHash]))
    expect(O.isSome(receipt) && receipt.value.succeeded).to.equal(false)
    expect(O.isSome(receipt) && receipt.value.revertReason).to.match(/emitted no Transfer\(.*, 77\) in it: not paid$/)
  })
})
