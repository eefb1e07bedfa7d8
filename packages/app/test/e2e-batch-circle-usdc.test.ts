import { gasTrapWalletAbi, gasTrapWalletBytecode } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, SETTLED_STATES } from './support/chain-control.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import {
  freshAddress,
  paymentBody,
  paymentFromPayer,
  sendFromAnvilAccount,
  transfersTo,
} from './support/payments-on-chain.js'
import { BATCHING_ON } from './support/test-facilitator.js'

/** The same signature with v written 0/1 (the recovery id), as some signers write it. */
const withRecoveryIdV = (signature: string): string =>
  `${signature.slice(0, 130)}${signature.endsWith('1b') ? '00' : '01'}`

type Body = Awaited<ReturnType<typeof paymentFromPayer>>

/** Issue 23 items 1 and 2: batches on Circle's FiatTokenV2_2 (whose ECRecover refuses v 0/1), through the real app. */
describe("end to end: batches through the settler on Circle's USDC (FiatTokenV2_2; real app, anvil, Postgres)", function () {
  this.timeout(240_000)
  let f: CircleUsdcFacilitator
  before(async () => {
    f = await startCircleUsdcFacilitator({ ...BATCHING_ON, RECEIPT_TIMEOUT_SECONDS: '60' })
  })
  after(() => f?.stop())

  /** Every settler transaction the journal names was mined and succeeded: none reverted whole. */
  const settlerTransactionsSucceeded = async () => {
    const hashes = (await f.db.knex('settlement_attempts').whereNotNull('batch_index').distinct('tx_hash')).map(
      (r: { tx_hash: string }) => r.tx_hash,
    )
    for (const hash of hashes) {
      const receipt = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) as { status: string } | null
      if (receipt !== null) expect(receipt.status, `settler transaction ${hash}`).to.equal('0x1')
    }
    return hashes.length
  }

  it('40 concurrent payments, half signed with v 0/1: all settle exactly once, batched', async () => {
    const payee = freshAddress()
    const bodies: Body[] = await Promise.all(
      Array.from({ length: 40 }, (_, n) => paymentFromPayer(f, n % f.chain.payers.length, payee, 1_000n + BigInt(n))),
    )
    for (const [n, body] of bodies.entries())
      if (n % 2 === 1)
        body.paymentPayload.payload.signature = withRecoveryIdV(body.paymentPayload.payload.signature) as Hex
    const answers = await Promise.all(bodies.map((body) => f.post('settle', body)))
    expect(answers.map((a) => a.status)).to.deep.equal(Array(40).fill(200))
    expect(answers.filter((a) => a.body.success !== true).map((a) => a.body.error)).to.deep.equal([])
    expect(await transfersTo(f, payee)).to.equal(40)
    expect(await f.balanceOf(payee)).to.equal(
      bodies.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
    )
    const rows = (await f.rows()).filter((r) => r.payee === payee)
    expect(rows.map((r) => SETTLED_STATES.includes(r.state as string))).to.deep.equal(Array(40).fill(true))
    expect(new Set(answers.map((a) => a.body.txHash)).size, 'some payments went together').to.be.lessThan(40)
    expect(await settlerTransactionsSucceeded()).to.be.greaterThan(0)
  })

  /** A GasTrapWallet of a fresh owner, holding USDC, and a payment from it signed by its owner (65 bytes). */
  const trapPayment = async (payee: Address, onChainOnly: boolean): Promise<Body> => {
    const ownerKey = generatePrivateKey()
    const data = encodeDeployData({
      abi: gasTrapWalletAbi,
      bytecode: gasTrapWalletBytecode,
      args: [privateKeyToAddress(ownerKey), 400_000n, onChainOnly],
    })
    const wallet = (await sendFromAnvilAccount(f, { data })).contractAddress!.toLowerCase() as Address
    await f.usdc.mint(wallet, 1_000_000n)
    return paymentBody(f, { payerKey: ownerKey, payer: wallet, payTo: payee, value: 1_000n })
  }

  it('a wallet that burns gas when little is left is refused at verify: its trial runs with the gas its batch item gets', async () => {
    const body = await trapPayment(freshAddress(), false)
    const verified = await f.post('verify', body)
    expect(verified.body).to.include({ valid: false })
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: false })
    expect((await f.rows()).filter((r) => r.payer === body.paymentPayload.payload.authorization.from)).to.have.length(0)
  })

  it('8 wallets that burn gas only in a block, among 25 honest payments: no batch reverts whole, the honest settle exactly once, none 503', async () => {
    const payee = freshAddress()
    const traps: Body[] = []
    // One after another: set-up transactions from one anvil account.
    for (let n = 0; n < 8; n++) traps.push(await trapPayment(payee, true))
    const honest: Body[] = await Promise.all(
      Array.from({ length: 25 }, (_, n) => paymentFromPayer(f, n % f.chain.payers.length, payee, 2_000n + BigInt(n))),
    )
    const all = [
      ...honest.slice(0, 5),
      ...traps.slice(0, 4),
      ...honest.slice(5, 15),
      ...traps.slice(4),
      ...honest.slice(15),
    ]
    const answers = await Promise.all(all.map((body) => f.post('settle', body)))
    expect(answers.map((a) => a.status)).to.deep.equal(Array(all.length).fill(200))
    const honestAnswers = answers.filter((_, i) => honest.includes(all[i]!))
    expect(honestAnswers.filter((a) => a.body.success !== true).map((a) => a.body.error)).to.deep.equal([])
    expect(await f.balanceOf(payee)).to.equal(
      honest.reduce((sum, b) => sum + BigInt(b.paymentPayload.payload.authorization.value), 0n),
    )
    expect(await transfersTo(f, payee)).to.equal(25)
    expect(answers.filter((_, i) => traps.includes(all[i]!)).every((a) => a.body.success === false)).to.equal(true)
    await settlerTransactionsSucceeded()
  })
})
