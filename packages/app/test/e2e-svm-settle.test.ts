import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import { ExactSvmScheme } from '@x402/svm/exact/server'
import { address } from '@solana/kit'
import { startSvmFacilitator, type SvmFacilitator } from './support/svm-facilitator.js'
import { getJson } from './support/json-client.js'
import { waitFor } from './support/wait-for.js'
import { recoverTypedDataAddress } from 'viem'
import type { SignedReceipt } from '@x402-facilitator/domain'

/**
 * Solana beside EVM (issue 40): the official stack end to end — @x402/svm 2.27's client builds every payment, the
 * official resource server verifies and settles through this facilitator — on the real SVM, journal on Postgres.
 */
describe('Solana payments through the service: the official client and resource server, the local SVM (app, Postgres)', function () {
  this.timeout(180_000)
  let s: SvmFacilitator
  let server: x402ResourceServer
  before(async () => {
    s = await startSvmFacilitator()
    server = new x402ResourceServer(new HTTPFacilitatorClient({ url: s.f.base })).register(
      'solana:*',
      new ExactSvmScheme(),
    )
    await server.initialize()
  })
  after(() => s?.stop())

  it('/supported lists the Solana network: an exact kind naming our fee payer, beside the EVM kinds', async () => {
    const { body } = await getJson(`${s.f.base}/supported`)
    const kinds = body.kinds as Array<{ network: string; scheme: string; extra?: Record<string, unknown> }>
    const solana = kinds.filter((kind) => kind.network.startsWith('solana:'))
    expect(solana).to.have.length(1)
    expect(solana[0]).to.deep.include({ scheme: 'exact', network: s.requirements('x').network })
    expect(solana[0]!.extra).to.deep.include({ feePayer: s.feePayer.address, asset: s.svm.mint })
    expect(kinds.some((kind) => kind.network.startsWith('eip155:'))).to.equal(true)
    expect((body.signers as Record<string, string[]>)['solana:*']).to.deep.equal([s.feePayer.address])
  })

  it('verifies and settles a payment once: the payee gains the amount, the payer no SOL; the journal keeps it in base58', async () => {
    const payer = await s.svm.fundedAccount(5_000_000n)
    const payTo = await s.payee()
    const required = s.requirements(payTo)
    const payload = await s.officialPayment(payer, required)
    const lamportsBefore = s.svm.svm.getBalance(payer.address)
    expect(await server.verifyPayment(payload, required)).to.deep.include({ isValid: true, payer: payer.address })
    const settled = await server.settlePayment(payload, required)
    expect(settled).to.deep.include({ success: true, payer: payer.address, network: required.network })
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)
    expect(await s.svm.tokenBalanceOf(payer.address)).to.equal(4_000_000n)
    expect(s.svm.svm.getBalance(payer.address)).to.equal(lamportsBefore)
    const rows = (await s.f.db.knex('settlements').where({ payer: payer.address })) as Array<Record<string, unknown>>
    expect(rows).to.have.length(1)
    expect(rows[0]).to.deep.include({ payee: payTo, tx_hash: settled.transaction, chain_id: required.network })
    // Final once the cluster says `finalized` (32 slots on top), never before it says so.
    const finalRow = await waitFor('the row final', async () => {
      const [row] = (await s.f.db.knex('settlements').where({ id: rows[0]!.id })) as Array<Record<string, unknown>>
      return row?.state === 'final' ? row : undefined
    })
    expect(finalRow.tx_hash).to.equal(settled.transaction)
    // Looked up by its signature, and by its payer and message digest: the journal's row, final.
    const bySignature = await getJson(`${s.f.base}/settlements/${settled.transaction}`)
    expect(bySignature.status, JSON.stringify(bySignature.body)).to.equal(200)
    expect(bySignature.body).to.deep.include({ state: 'final', payer: payer.address, payee: payTo })
    const byPayment = await getJson(`${s.f.base}/settlements?payer=${payer.address}&nonce=${String(finalRow.nonce)}`)
    expect(byPayment.status, JSON.stringify(byPayment.body)).to.equal(200)
    expect(byPayment.body).to.deep.include({ state: 'final', txHash: settled.transaction })
    // Its receipt, signed by the attestation key: Solana's typed data, its addresses and identity as strings.
    const receipt = (settled.extensions as Record<string, SignedReceipt>)['facilitator-receipt']!
    expect(receipt.primaryType).to.equal('SolanaSettlementReceipt')
    expect(receipt.message).to.deep.include({
      network: required.network,
      asset: s.svm.mint,
      payer: payer.address,
      payee: payTo,
      value: '1000000',
      nonce: finalRow.nonce,
      transferMethod: 'transferChecked',
      transactionHash: settled.transaction,
    })
    const { body: supported } = await getJson(`${s.f.base}/supported`)
    const signer = await recoverTypedDataAddress({ ...receipt, signature: receipt.signature as `0x${string}` } as never)
    expect(signer.toLowerCase()).to.equal((supported.attestation as { current: string }).current)
    expect((bySignature.body.receipt as SignedReceipt).message).to.deep.include({
      state: 'final',
      nonce: finalRow.nonce,
    })
    expect(s.svm.statusOf(settled.transaction)?.commitment).to.equal('finalized')
  })

  it('the same payment settled again, and ten times at once, moves it once and answers one success', async () => {
    const payer = await s.svm.fundedAccount(5_000_000n)
    const payTo = await s.payee()
    const required = s.requirements(payTo)
    const payload = await s.officialPayment(payer, required)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => server.settlePayment(payload, required).catch((error: Error) => error)),
    )
    const successes = answers.flatMap((a) => (a instanceof Error || !a.success ? [] : [a]))
    expect(
      successes,
      JSON.stringify(answers.map((a) => (a instanceof Error ? a.message : a.errorReason))),
    ).to.have.length(1)
    const again = await server.settlePayment(payload, required).catch((error: Error) => error)
    expect(
      again instanceof Error || again.success !== true || again.transaction === successes[0]!.transaction,
    ).to.equal(true)
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(1_000_000n)
    expect(await s.svm.tokenBalanceOf(payer.address)).to.equal(4_000_000n)
  })

  it('refuses a payer without the funds by simulation, and a payment whose blockhash expired; our fee payer spends nothing', async () => {
    const feePayerBefore = s.svm.svm.getBalance(s.feePayer.address)
    const broke = await s.svm.fundedAccount(10n)
    const payTo = await s.payee()
    const required = s.requirements(payTo)
    const unfunded = await s.officialPayment(broke, required)
    expect(await server.verifyPayment(unfunded, required)).to.deep.include({
      isValid: false,
      invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    })
    const payer = await s.svm.fundedAccount(5_000_000n)
    const stale = await s.officialPayment(payer, required)
    s.svm.advance(151n)
    const settled = await server.settlePayment(stale, required).catch((error: Error) => error)
    const reason = settled instanceof Error ? settled.message : settled.errorReason
    expect(reason).to.include('invalid_exact_svm_transaction_expired')
    expect(await s.svm.tokenBalanceOf(address(payTo))).to.equal(0n)
    expect(s.svm.svm.getBalance(s.feePayer.address)).to.equal(feePayerBefore)
  })
})
