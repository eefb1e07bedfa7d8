import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { receiptOf } from './support/chain-control.js'
import { startCircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { demoUsdControls, type TokenControls } from './support/token-controls.js'
import { facilitatorNonces, freshAddress, paymentFromPayer } from './support/payments-on-chain.js'

type PaymentBody = Awaited<ReturnType<typeof paymentFromPayer>>

/** Each token the app is proven on, started with the controls of its blacklist and pause. */
const TOKENS: ReadonlyArray<{ name: string; start: () => Promise<{ f: TestFacilitator; token: TokenControls }> }> = [
  {
    name: 'Circle USDC (FiatTokenV2_2 behind FiatTokenProxy)',
    start: async () => startCircleUsdcFacilitator().then((f) => ({ f, token: f.usdc })),
  },
  { name: 'DemoUsd', start: async () => startTestFacilitator().then((f) => ({ f, token: demoUsdControls(f) })) },
]

// Issue 17 parts 1, 3 and 4: what USDC itself would refuse (and DemoUsd, which copies it) (blacklist, pause) is refused
// before any gas is spent — verify and settle answer a specific reason, the facilitator broadcasts nothing (its
// account nonce, mined and pending, does not move) and claims nothing (no journal row; the same payment settles once
// the token allows it).
for (const { name, start } of TOKENS)
  describe(`end to end on ${name}: a payment the token would revert is refused, nothing broadcast (docs/ARCHITECTURE.md §3)`, function () {
    this.timeout(120_000)
    let f: TestFacilitator
    let token: TokenControls
    before(async () => {
      ;({ f, token } = await start())
    })
    after(() => f?.stop())

    /**
     * Verify then settle `body` while the token refuses it. Everything observed is compared at once, so a failure shows
     * the whole answer (today: `valid:true`, then a settle broadcast and reverted on-chain).
     */
    const expectRefusedUnbroadcast = async (body: PaymentBody, reasonCode: string) => {
      const noncesBefore = await facilitatorNonces(f)
      const rowsBefore = (await f.rows()).length
      const payer = body.paymentPayload.payload.authorization.from
      const payerBalance = await f.balanceOf(payer)
      const verify = await f.post('verify', body)
      const settle = await f.post('settle', body)
      expect({
        verify: { status: verify.status, valid: verify.body.valid, reasonCode: verify.body.reasonCode },
        settle: {
          status: settle.status,
          success: settle.body.success,
          errorCode: settle.body.errorCode,
          txHash: settle.body.txHash,
        },
        facilitatorNonces: await facilitatorNonces(f),
        journalRows: (await f.rows()).length,
        payerBalance: await f.balanceOf(payer),
      }).to.deep.equal({
        verify: { status: 200, valid: false, reasonCode },
        settle: { status: 200, success: false, errorCode: reasonCode, txHash: undefined },
        facilitatorNonces: noncesBefore,
        journalRows: rowsBefore,
        payerBalance,
      })
      expect(verify.body.invalidReason).to.be.a('string').and.not.equal('')
      expect(settle.body.error).to.be.a('string').and.not.equal('')
    }

    /** Once the token allows it, the very payment refused settles: the refusal claimed and reserved nothing. */
    const expectSettles = async (body: PaymentBody) => {
      const settled = await f.post('settle', body)
      expect(settled.body).to.include({ success: true })
      expect((await receiptOf(f.chain.rpcUrl, settled.body.txHash as string))?.status).to.equal('0x1')
      expect((await f.rows()).filter((row) => row.tx_hash === settled.body.txHash)).to.have.length(1)
    }

    it('a blacklisted payer: payer_blacklisted; unblacklisted, its whole balance is still free and the same payment settles', async () => {
      const payer = f.chain.payers[0]!.address
      const balance = await f.balanceOf(payer)
      const body = await paymentFromPayer(f, 0, freshAddress(), balance)
      await token.blacklist(payer)
      try {
        await expectRefusedUnbroadcast(body, 'payer_blacklisted')
      } finally {
        await token.unBlacklist(payer)
      }
      // Rule 9 counts what is in flight here: a refusal must not have left the balance reserved.
      expect((await f.post('verify', await paymentFromPayer(f, 0, freshAddress(), balance))).body).to.include({
        valid: true,
        payer,
      })
      await expectSettles(body)
      expect(await f.balanceOf(payer)).to.equal(0n)
    })

    it('a blacklisted payee: payee_blacklisted; unblacklisted, the same payment settles', async () => {
      const payee: Address = freshAddress()
      const body = await paymentFromPayer(f, 1, payee, 500_000n)
      await token.blacklist(payee)
      try {
        await expectRefusedUnbroadcast(body, 'payee_blacklisted')
      } finally {
        await token.unBlacklist(payee)
      }
      await expectSettles(body)
      expect(await f.balanceOf(payee)).to.equal(500_000n)
    })

    it('a paused token: token_paused; unpaused, the same payment settles', async () => {
      const payee = freshAddress()
      const body = await paymentFromPayer(f, 2, payee, 700_000n)
      await token.pause()
      try {
        await expectRefusedUnbroadcast(body, 'token_paused')
      } finally {
        await token.unpause()
      }
      await expectSettles(body)
      expect(await f.balanceOf(payee)).to.equal(700_000n)
    })
  })
