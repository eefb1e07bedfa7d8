import { expect } from 'chai'
import {
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  generateKeyPairSigner,
  signTransaction,
  type KeyPairSigner,
} from '@solana/kit'
import { toFacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import { ExactSvmScheme as ExactSvmFacilitator } from '@x402/svm/exact/facilitator'
import type { Server } from 'node:http'
import { BLOCKHASH_VALID_SLOTS, LOCAL_SVM_NETWORK, LocalSvm } from '../src/testing/svm/local-svm.js'
import { serveSvmJsonRpc } from '../src/testing/svm/svm-json-rpc.js'

/**
 * The local SVM's JSON-RPC is standard enough for the official stack: @x402/svm 2.27's client builds a payment over it,
 * and its own facilitator verifies (simulation without the fee payer's signature), settles (sign, send, statuses) and
 * refuses what the chain refuses — each method answered as a node would, by the real SVM.
 */
describe('the local SVM over standard JSON-RPC, driven by the official x402 SVM client and facilitator (litesvm)', () => {
  let chain: LocalSvm
  let server: Server
  let rpcUrl: string
  let feePayer: KeyPairSigner
  let facilitator: ExactSvmFacilitator
  before(async () => {
    chain = await LocalSvm.start()
    // Slots pass (a cluster's are 400 ms): the official facilitator waits for `confirmed`.
    chain.run(50)
    ;({ url: rpcUrl, server } = await serveSvmJsonRpc(chain))
    feePayer = await chain.fundedAccount()
    facilitator = new ExactSvmFacilitator(toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: rpcUrl }))
  })
  after(() => {
    chain.stop()
    server.close()
  })

  const paymentTo = async (payTo: string, payer: KeyPairSigner) => {
    const requirements = {
      scheme: 'exact',
      network: LOCAL_SVM_NETWORK,
      asset: chain.mint,
      payTo,
      amount: '1000000',
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address },
    } as const
    const { payload } = await new ExactSvmClient(payer, { rpcUrl }).createPaymentPayload(2, requirements)
    return { requirements, paymentPayload: { x402Version: 2, accepted: requirements, payload } }
  }

  it('verifies and settles a payment: the payee gains exactly the amount, the payer pays no SOL', async () => {
    const payer = await chain.fundedAccount(3_000_000n)
    const payTo = (await generateKeyPairSigner()).address
    await chain.openTokenAccount(payTo)
    const { requirements, paymentPayload } = await paymentTo(payTo, payer)
    const lamportsBefore = chain.svm.getBalance(payer.address)

    expect(await facilitator.verify(paymentPayload, requirements)).to.deep.include({
      isValid: true,
      payer: payer.address,
    })
    const settled = await facilitator.settle(paymentPayload, requirements)
    expect(settled).to.deep.include({ success: true, network: LOCAL_SVM_NETWORK, payer: payer.address })
    expect(settled.transaction).to.be.a('string').and.not.equal('')
    expect(await chain.tokenBalanceOf(payTo)).to.equal(1_000_000n)
    expect(await chain.tokenBalanceOf(payer.address)).to.equal(2_000_000n)
    expect(chain.svm.getBalance(payer.address)).to.equal(lamportsBefore)
  })

  it('refuses by simulation what the chain would refuse: a payee without a token account, a payer without funds', async () => {
    const payer = await chain.fundedAccount(3_000_000n)
    const noAccount = (await generateKeyPairSigner()).address
    const toNoAccount = await paymentTo(noAccount, payer)
    expect(await facilitator.verify(toNoAccount.paymentPayload, toNoAccount.requirements)).to.deep.include({
      isValid: false,
      invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    })

    const broke = await chain.fundedAccount(0n)
    const payTo = (await generateKeyPairSigner()).address
    await chain.openTokenAccount(payTo)
    const { requirements, paymentPayload } = await paymentTo(payTo, broke)
    expect(await facilitator.verify(paymentPayload, requirements)).to.deep.include({
      isValid: false,
      invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    })
    expect(await chain.tokenBalanceOf(payTo)).to.equal(0n)
  })

  describe('time, as a cluster passes it (slots advanced by hand here)', () => {
    let still: LocalSvm
    let stillUrl: string
    let stillServer: Server
    before(async () => {
      still = await LocalSvm.start()
      ;({ url: stillUrl, server: stillServer } = await serveSvmJsonRpc(still))
    })
    after(() => stillServer.close())

    /** A payment built by the official client and signed by its fee payer, as a facilitator sends it. */
    const signedPayment = async () => {
      const feePayer = await still.fundedAccount()
      const payer = await still.fundedAccount(1_000_000n)
      const payTo = (await generateKeyPairSigner()).address
      await still.openTokenAccount(payTo)
      const requirements = {
        scheme: 'exact',
        network: LOCAL_SVM_NETWORK,
        asset: still.mint,
        payTo,
        amount: '1000',
        maxTimeoutSeconds: 60,
        extra: { feePayer: feePayer.address },
      } as const
      const { payload } = await new ExactSvmClient(payer, { rpcUrl: stillUrl }).createPaymentPayload(2, requirements)
      const wire = getTransactionDecoder().decode(getBase64Encoder().encode(String(payload.transaction)))
      const signed = await signTransaction([feePayer.keyPair], wire)
      return { base64: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed), payTo }
    }

    it('reports a transaction processed, then confirmed a slot later, then finalized 32 slots after its own', async () => {
      const rpc = createSolanaRpc(stillUrl)
      const { base64, signature } = await signedPayment()
      expect(await rpc.sendTransaction(base64, { encoding: 'base64', skipPreflight: true }).send()).to.equal(signature)
      const commitment = async () => (await rpc.getSignatureStatuses([signature]).send()).value[0]?.confirmationStatus
      expect(await commitment()).to.equal('processed')
      still.advance(1n)
      expect(await commitment()).to.equal('confirmed')
      still.advance(30n)
      expect(await commitment()).to.equal('confirmed')
      still.advance(1n)
      expect(await commitment()).to.equal('finalized')
      const { value } = await rpc.getSignatureStatuses([signature]).send()
      expect(value[0]).to.deep.include({ confirmations: null, err: null })
    })

    it('expires a blockhash 150 slots after it was issued: a transaction sent later never lands', async () => {
      const rpc = createSolanaRpc(stillUrl)
      const { base64, signature, payTo } = await signedPayment()
      const { value: latest } = await rpc.getLatestBlockhash().send()
      still.advance(BLOCKHASH_VALID_SLOTS)
      expect((await rpc.isBlockhashValid(latest.blockhash).send()).value).to.equal(true)
      expect(await rpc.getBlockHeight().send()).to.equal(latest.lastValidBlockHeight)
      still.advance(1n)
      expect((await rpc.isBlockhashValid(latest.blockhash).send()).value).to.equal(false)
      expect(
        (await rpc.simulateTransaction(base64, { encoding: 'base64', sigVerify: false }).send()).value.err,
      ).to.equal('BlockhashNotFound')
      expect(await rpc.sendTransaction(base64, { encoding: 'base64', skipPreflight: true }).send()).to.equal(signature)
      still.advance(40n)
      expect((await rpc.getSignatureStatuses([signature]).send()).value[0]).to.equal(null)
      expect(await still.tokenBalanceOf(payTo)).to.equal(0n)
    })
  })
})
