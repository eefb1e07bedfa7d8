import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type KeyPairSigner } from '@solana/kit'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import type { Server } from 'node:http'
import { makeSvmChain } from '../src/svm/svm-chain.js'
import { svmCodec } from '../src/svm/svm-codec.js'
import { makeSvmFeePayer, svmKeyPairFromSecret } from '../src/svm/svm-fee-payer.js'
import { makeSvmRpc } from '../src/svm/svm-rpc.js'
import { BLOCKHASH_VALID_SLOTS, LOCAL_SVM_NETWORK, LocalSvm } from '../src/testing/svm/local-svm.js'
import { serveSvmJsonRpc } from '../src/testing/svm/svm-json-rpc.js'

const right = <A>(either: E.Either<unknown, A>): A => {
  if (E.isLeft(either)) throw new Error(`expected a value: ${JSON.stringify(either.left)}`)
  return either.right
}

/**
 * The SVM chain port over standard JSON-RPC (`@solana/kit`), against the real SVM behind the local endpoint, with
 * payments the official @x402/svm 2.27 client builds.
 */
describe('the SVM chain port, fee payer and codec over JSON-RPC (local SVM)', () => {
  let chain: LocalSvm
  let server: Server
  let rpcUrl: string
  let feePayer: KeyPairSigner
  before(async () => {
    chain = await LocalSvm.start()
    ;({ url: rpcUrl, server } = await serveSvmJsonRpc(chain))
    feePayer = await chain.fundedAccount()
  })
  after(() => server.close())

  const payment = async (payer: KeyPairSigner, amount = '1000') => {
    const payTo = (await generateKeyPairSigner()).address
    await chain.openTokenAccount(payTo)
    const requirements = {
      scheme: 'exact',
      network: LOCAL_SVM_NETWORK,
      asset: chain.mint,
      payTo,
      amount,
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address },
    } as const
    const { payload } = await new ExactSvmClient(payer, { rpcUrl }).createPaymentPayload(2, requirements)
    return { base64: String(payload.transaction), payTo }
  }

  it('reads, simulates, signs, sends and follows a payment to confirmed; a dead first URL fails over', async () => {
    const svm = makeSvmChain(makeSvmRpc({ rpcUrls: ['http://127.0.0.1:9', rpcUrl], timeoutMs: 2_000 }))
    const payer = await chain.fundedAccount(5_000n)
    const { base64, payTo } = await payment(payer)
    const transaction = right(await svmCodec.read(base64))
    expect(transaction.messageId).to.match(/^[0-9a-f]{64}$/)
    expect(transaction.feePayer).to.equal(feePayer.address)
    const source = transaction.instructions[2]!.accounts[0]!
    expect(right(await svm.tokenBalance(source)())).to.equal(5_000n)
    expect(right(await svm.tokenBalance(payTo)())).to.equal(undefined)
    expect(right(await svm.simulate(base64)())).to.equal(undefined)
    expect(right(await svm.landable(base64)())).to.equal(true)

    const { signed, signature } = right(await makeSvmFeePayer(feePayer).sign(base64)())
    expect(right(await makeSvmFeePayer(feePayer).sign(base64)())).to.deep.equal({ signed, signature })
    right(await svm.send(signed)())
    expect(right(await svm.statuses([signature])()).get(signature)).to.deep.include({
      commitment: 'processed',
      err: null,
    })
    chain.advance(1n)
    const landed = right(await svm.statuses([signature])()).get(signature)
    expect(landed).to.deep.include({ commitment: 'confirmed' })
    expect(right(await svm.blockHashAt(landed!.slot)())).to.equal(chain.blockHashAt(landed!.slot))
    expect(await chain.tokenBalanceOf(payer.address)).to.equal(4_000n)
    // The same bytes again: the cluster ran them once.
    right(await svm.send(signed)())
    expect(await chain.tokenBalanceOf(payer.address)).to.equal(4_000n)
  })

  it('tells a payment the chain would refuse, and one whose blockhash expired', async () => {
    const svm = makeSvmChain(makeSvmRpc({ rpcUrls: [rpcUrl] }))
    const broke = await chain.fundedAccount(10n)
    const { base64 } = await payment(broke)
    expect(right(await svm.simulate(base64)()))
      .to.be.a('string')
      .and.match(/InstructionError|Custom|insufficient/i)
    const payer = await chain.fundedAccount(5_000n)
    const fresh = await payment(payer)
    chain.advance(BLOCKHASH_VALID_SLOTS + 1n)
    expect(right(await svm.landable(fresh.base64)())).to.equal(false)
    const { signed, signature } = right(await makeSvmFeePayer(feePayer).sign(fresh.base64)())
    right(await svm.send(signed)())
    expect(right(await svm.statuses([signature])()).size).to.equal(0)
  })

  it('answers a cluster it cannot reach as unavailable, never a throw', async () => {
    const svm = makeSvmChain(makeSvmRpc({ rpcUrls: ['http://127.0.0.1:9'], timeoutMs: 1_000 }))
    const read = await svm.lamports(feePayer.address)()
    expect(E.isLeft(read) && read.left._tag).to.equal('ChainUnavailable')
  })

  it('loads a fee payer key from a key file array or its base58, and refuses another length without echoing it', async () => {
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 7 + 1) % 256)
    // A key file holds the private key's 32 bytes, then the public key's (the address).
    const generated = await generateKeyPairSigner(true)
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', generated.keyPair.privateKey))
    const secret = Uint8Array.from([...pkcs8.slice(-32), ...getBase58Encoder().encode(generated.address)])
    expect((await svmKeyPairFromSecret(JSON.stringify([...secret]))).address).to.equal(generated.address)
    expect((await svmKeyPairFromSecret(getBase58Decoder().decode(secret))).address).to.equal(generated.address)
    const short = getBase58Decoder().decode(bytes.slice(0, 63))
    try {
      await svmKeyPairFromSecret(short)
      expect.fail('a 63-byte key was accepted')
    } catch (error) {
      expect((error as Error).message).to.equal('a Solana fee payer key has 64 bytes; this one has 63')
      expect((error as Error).message).not.to.include(short)
    }
  })
})
