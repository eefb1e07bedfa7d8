import type { EvmAddress as Address, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeErc1271Check } from '../src/evm/wallets/erc1271-check.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { makeSecp256k1SignatureVerifier } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { deployCircleUsdc, deployPermit2Suite, type CircleUsdc, type Permit2Suite } from '../src/testing/index.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'
import { approvePermit2, balanceOf, officialPermit2Payload, permit2AuthorizationOf } from './permit2-payments.js'

const minedReceipt = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error('not mined')
  return outcome.receipt
}

// Circle's USDC (FiatTokenV2_2) paid through Permit2 by the route that also settles its EIP-3009 payments.
describe("Circle's USDC through Permit2 beside EIP-3009 (anvil)", () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let usdc: CircleUsdc
  let suite: Permit2Suite
  const payTo: Address = '0x00000000000000000000000000000000000000dd'

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    suite = await deployPermit2Suite(rpc)
    usdc = await deployCircleUsdc(rpc)
    await usdc.mint(chain.payers[0]!.address, 10_000_000n)
    await approvePermit2(rpc, suite, usdc.address, chain.payers[0]!.address)
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  it('a Permit2 exact payment is verified, tried, sent and judged paid; an EIP-3009 one on the same route still is', async () => {
    const payer = chain.payers[0]!
    const reader = makeRpcTokenReader(rpc, usdc.address, { facilitator: chain.facilitator.address, permit2: suite })
    const verifier = makeSecp256k1SignatureVerifier(reader.domain, makeErc1271Check(rpc), undefined, suite)
    const submitter = makeRpcTransferSubmitter({ rpc, token: usdc.address, privateKey: chain.facilitator.privateKey })
    const amount = 250_000n
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, { token: usdc.address, amount, payTo })
    const authorization = permit2AuthorizationOf('exact', signed)

    expect((await right(verifier.checkAuthorization(authorization, signed.signature)))._tag).to.equal('SignatureValid')
    const trial = await right(reader.trialPayment(authorization, signed.signature))
    if (trial.transfer._tag !== 'WouldSucceed') throw new Error(`trial: ${JSON.stringify(trial.transfer)}`)
    const before = await balanceOf(rpc, usdc.address, payTo)
    const prepared = await right(submitter.prepare(authorization, signed.signature, trial.transfer.gasUsed))
    const receipt = minedReceipt(await right(submitter.send(prepared, 20_000)))
    expect(receipt.succeeded, receipt.revertReason).to.equal(true)
    expect(await balanceOf(rpc, usdc.address, payTo)).to.equal(before + amount)
    expect((await right(reader.payerState(payer.address, authorization.nonce, 'permit2'))).authorizationUsed).to.equal(
      true,
    )

    const domain = await right(reader.domain)
    const eip3009 = await signedBy(payer, domain, authorizationFrom(payer, payTo, 1_000n))
    expect(await right(verifier.checkAuthorization(eip3009.authorization, eip3009.signature))).to.deep.equal({
      _tag: 'SignatureValid',
      byKey: true,
    })
    const sent = await right(submitter.prepare(eip3009.authorization, eip3009.signature))
    expect(minedReceipt(await right(submitter.send(sent, 20_000))).succeeded).to.equal(true)
    expect(await balanceOf(rpc, usdc.address, payTo)).to.equal(before + amount + 1_000n)
  })
})
