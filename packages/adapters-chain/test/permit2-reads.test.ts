import type { EvmAddress as Address, PaymentTrial, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { maxUint256 } from 'viem'
import { makeChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makePermit2Reader } from '../src/evm/permit2/permit2-reader.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { transferCall } from '../src/evm/token/transfer-call.js'
import { transferGasLimit } from '../src/evm/submission/transfer-gas-limit.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import { officialPermit2Payload, permit2AuthorizationOf } from './permit2-payments.js'

const minedReceipt = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error('not mined')
  return outcome.receipt
}

const reasonOf = (trial: PaymentTrial): string => {
  if (trial.transfer._tag !== 'WouldRevert') throw new Error(`expected a revert, got ${trial.transfer._tag}`)
  return trial.transfer.reason ?? ''
}

// Rules 8'–10' reads of a Permit2 payment: balance, allowance to Permit2, Permit2's nonce bit, and the proxy call tried.
describe('RpcTokenReader: Permit2 payer state and trial (anvil)', () => {
  const t = permit2Chain(10_000_000n)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'
  let reader: RpcTokenReader
  let submitter: RpcTransferSubmitter
  before(() => {
    const { rpc, dusdt, chain, suite } = t
    reader = makeRpcTokenReader(rpc, dusdt.address, { facilitator: chain.facilitator.address, permit2: suite })
    submitter = makeRpcTransferSubmitter({ rpc, token: dusdt.address, privateKey: chain.facilitator.privateKey })
  })

  it('exact: reads the allowance and an unused nonce; the trial succeeds and its gas makes a sufficient limit; once sent, the nonce reads used and the trial reverts InvalidNonce', async () => {
    const { chain, suite, dusdt } = t
    const payer = chain.payers[0]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: dusdt.address,
      amount: 2_000n,
      payTo,
    })
    const authorization = permit2AuthorizationOf('exact', signed)
    const state = await right(reader.payerState(payer.address, authorization.nonce, 'permit2'))
    expect(state).to.deep.include({ authorizationUsed: false, permit2Allowance: maxUint256 })
    expect(state.balance > 0n).to.equal(true)

    const trial = await right(reader.trialPayment(authorization, signed.signature))
    expect(trial).to.deep.include({ authorizationUsed: false, payerHasCode: false, permit2Allowance: maxUint256 })
    if (trial.transfer._tag !== 'WouldSucceed') throw new Error(`trial: ${JSON.stringify(trial.transfer)}`)
    const prepared = await right(submitter.prepare(authorization, signed.signature, trial.transfer.gasUsed))
    const receipt = minedReceipt(await right(submitter.send(prepared, 20_000)))
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    const call = transferCall(authorization, signed.signature, {
      token: dusdt.address,
      multicall3: dusdt.address,
      allowedFactories: [],
    })
    const limit = transferGasLimit(call.data, trial.transfer.gasUsed, { fallback: 0n, cap: 10_000_000n })
    expect(receipt.gasUsed < limit).to.equal(true)

    expect((await right(reader.payerState(payer.address, authorization.nonce, 'permit2'))).authorizationUsed).to.equal(
      true,
    )
    const after = await right(reader.trialPayment(authorization, signed.signature))
    expect(after.authorizationUsed).to.equal(true)
    expect(reasonOf(after)).to.match(/^InvalidNonce\(\)/)
  })

  it('upto: the trial runs from the witness facilitator; the same call from another key reverts UnauthorizedFacilitator', async () => {
    const { chain, rpc, suite, dusdt } = t
    const signed = await officialPermit2Payload('upto', chain.payers[1]!, suite.chainId, {
      token: dusdt.address,
      amount: 7_000n,
      payTo,
      facilitator: chain.facilitator.address,
    })
    const authorization = permit2AuthorizationOf('upto', signed, 3_000n)
    // A reader whose own sender is another key: the upto trial still runs from the witness key.
    const elsewhere = makeRpcTokenReader(rpc, dusdt.address, { facilitator: chain.payers[0]!.address, permit2: suite })
    expect((await right(elsewhere.trialPayment(authorization, signed.signature))).transfer._tag).to.equal(
      'WouldSucceed',
    )

    const call = transferCall(authorization, signed.signature, {
      token: dusdt.address,
      multicall3: dusdt.address,
      allowedFactories: [],
    })
    const direct = makePermit2Reader({
      rpc,
      token: dusdt.address,
      permit2: suite.permit2,
      from: chain.payers[0]!.address,
    })
    const fromOther = await direct.trial(authorization, call, chain.payers[0]!.address)
    expect(reasonOf(fromOther)).to.match(/^UnauthorizedFacilitator\(\): upto proxy/)
  })

  it('a payer that never approved Permit2 reads permit2Allowance 0 and its trial reverts', async () => {
    const { chain, rpc, suite } = t
    const { deployDemoUsdt } = await import('../src/testing/index.js')
    const payer = chain.payers[0]!
    const bare = await deployDemoUsdt(rpc, { payers: [payer.address], units: 50_000n })
    const bareReader = makeRpcTokenReader(rpc, bare.address, { facilitator: chain.facilitator.address, permit2: suite })
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, {
      token: bare.address,
      amount: 1_000n,
      payTo,
    })
    const authorization = permit2AuthorizationOf('exact', signed)
    expect(await right(bareReader.payerState(payer.address, authorization.nonce, 'permit2'))).to.deep.equal({
      balance: 50_000n,
      permit2Allowance: 0n,
      authorizationUsed: false,
    })
    expect(reasonOf(await right(bareReader.trialPayment(authorization, signed.signature)))).to.match(/TRANSFER_FROM/)
  })

  it('a payment valid only from a later time is not tried (the proxy refuses it before its block)', async () => {
    const { chain, suite, dusdt } = t
    const signed = await officialPermit2Payload('exact', chain.payers[0]!, suite.chainId, {
      token: dusdt.address,
      amount: 1_000n,
      payTo,
    })
    const later = { ...permit2AuthorizationOf('exact', signed), validAfter: 4_000_000_000n }
    const trial = await right(reader.trialPayment(later, signed.signature))
    expect(trial.transfer).to.deep.equal({
      _tag: 'NotTried',
      why: 'the latest block is before validAfter 4000000000',
    })
  })

  it('reads the payer state and tries the payment in one HTTP request each (one JSON-RPC batch)', async () => {
    const { chain, suite, dusdt } = t
    let requests = 0
    const counted = makeChainRpc({ rpcUrl: chain.rpcUrl, onHttpRequest: () => requests++ })
    try {
      const counting = makeRpcTokenReader(counted, dusdt.address, {
        facilitator: chain.facilitator.address,
        permit2: suite,
      })
      const signed = await officialPermit2Payload('exact', chain.payers[1]!, suite.chainId, {
        token: dusdt.address,
        amount: 1_000n,
        payTo,
      })
      const authorization = permit2AuthorizationOf('exact', signed)
      await right(counting.payerState(authorization.from, authorization.nonce, 'permit2'))
      expect(requests).to.equal(1)
      const trial = await right(counting.trialPayment(authorization, signed.signature))
      expect(trial.transfer._tag).to.equal('WouldSucceed')
      expect(requests).to.equal(2)
    } finally {
      counted.close()
    }
  })
})
