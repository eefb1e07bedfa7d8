import { expect } from 'chai'
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit'
import { toFacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import { ExactSvmScheme as ExactSvmFacilitator } from '@x402/svm/exact/facilitator'
import type { Server } from 'node:http'
import { LOCAL_SVM_NETWORK, LocalSvm } from '../src/testing/svm/local-svm.js'
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
    ;({ url: rpcUrl, server } = await serveSvmJsonRpc(chain))
    feePayer = await chain.fundedAccount()
    facilitator = new ExactSvmFacilitator(toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: rpcUrl }))
  })
  after(() => server.close())

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
})
