import { expect } from 'chai'
import { svmPaymentRules, type SvmPaymentTerms } from '@x402-facilitator/domain'
import { generateKeyPairSigner } from '@solana/kit'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import * as E from 'fp-ts/lib/Either.js'
import type { Server } from 'node:http'
import { associatedTokenAccounts } from '../src/svm/svm-token-accounts.js'
import { readSvmTransaction } from '../src/svm/svm-transaction-reader.js'
import { LOCAL_SVM_NETWORK, LocalSvm } from '../src/testing/svm/local-svm.js'
import { serveSvmJsonRpc } from '../src/testing/svm/svm-json-rpc.js'

/**
 * The official client (@x402/svm 2.27's `ExactSvmScheme`, over standard JSON-RPC served from the real SVM) builds each
 * payload; the reader decodes it for the domain's rules, which accept it and refuse what was altered.
 */
describe('an exact SVM payment as the official client builds it, read for the rules (litesvm)', () => {
  let chain: LocalSvm
  let server: Server
  let rpcUrl: string
  before(async () => {
    chain = await LocalSvm.start()
    ;({ url: rpcUrl, server } = await serveSvmJsonRpc(chain))
  })
  after(() => server.close())

  const payment = async (amount = 1_000_000n) => {
    const payer = await chain.fundedAccount(5_000_000n)
    const feePayer = await generateKeyPairSigner()
    const payTo = (await generateKeyPairSigner()).address
    await chain.openTokenAccount(payTo)
    const requirements = {
      scheme: 'exact',
      network: LOCAL_SVM_NETWORK,
      asset: chain.mint,
      payTo,
      amount: String(amount),
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address },
    } as const
    const { payload } = await new ExactSvmScheme(payer, { rpcUrl }).createPaymentPayload(2, requirements)
    const terms: SvmPaymentTerms = {
      feePayer: feePayer.address,
      feePayers: new Set([feePayer.address]),
      asset: chain.mint,
      amount,
      payToAccountOf: await associatedTokenAccounts(payTo, chain.mint),
    }
    return { payer, feePayer, transaction: (payload as { transaction: string }).transaction, terms }
  }

  it("decodes it: our fee payer first and unsigned, the payer's valid signature, four instructions; the rules accept it", async () => {
    const { payer, feePayer, transaction, terms } = await payment()
    const read = await readSvmTransaction(transaction)
    if (E.isLeft(read)) throw new Error(read.left)
    const tx = read.right.transaction
    expect(tx.feePayer).to.equal(feePayer.address)
    expect(tx.signers).to.deep.equal([feePayer.address, payer.address])
    expect([...tx.validSignatures]).to.deep.equal([payer.address])
    expect(tx.instructions).to.have.length(4)
    const judged = svmPaymentRules(tx, terms)
    expect(E.isRight(judged) && judged.right).to.deep.include({ authority: payer.address, amount: 1_000_000n })
  })

  it("refuses it for another amount, another fee payer, or a payer's signature over other bytes", async () => {
    const { transaction, terms } = await payment()
    const read = await readSvmTransaction(transaction)
    if (E.isLeft(read)) throw new Error(read.left)
    const judge = (t: SvmPaymentTerms) => {
      const judged = svmPaymentRules(read.right.transaction, t)
      return E.isLeft(judged) ? judged.left._tag : 'accepted'
    }
    expect(judge({ ...terms, amount: 999_999n })).to.equal('SvmAmountMismatch')
    const ours = (await generateKeyPairSigner()).address
    expect(judge({ ...terms, feePayer: ours, feePayers: new Set([ours]) })).to.equal('SvmFeePayerMismatch')

    // One byte of the message changed (the transfer's amount): the payer's signature no longer verifies.
    const bytes = Buffer.from(transaction, 'base64')
    const at = bytes.indexOf(Buffer.from([0x0c, 0x40, 0x42, 0x0f]))
    bytes[at + 1] = 0x41
    const altered = await readSvmTransaction(bytes.toString('base64'))
    if (E.isLeft(altered)) throw new Error(altered.left)
    expect([...altered.right.transaction.validSignatures]).to.deep.equal([])
  })

  it('answers what does not decode with why, never a throw', async () => {
    for (const garbage of ['', 'AAAA', Buffer.from('not a transaction at all').toString('base64')]) {
      const read = await readSvmTransaction(garbage)
      expect(E.isLeft(read) && read.left).to.be.a('string')
    }
  })
})
