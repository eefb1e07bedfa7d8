import { expect } from 'chai'
import type { Address } from '@x402-facilitator/domain'
import { chainBackToNormal, isSettled } from './support/chain-control.js'
import {
  finishedRows,
  killWithSettlesInFlight,
  restart,
  setUpPermit2Chain,
  transfersIn,
  type Permit2Chain,
} from './support/permit2-chain.js'
import { PAYEE } from './support/test-facilitator.js'
import { postJson } from './support/json-client.js'

/**
 * Permit2 `exact` payments (issue 26), made by @x402/evm 2.27's `ExactEvmScheme`, with the app killed (SIGKILL) while
 * their transactions are in the node's pool, then restarted on the same chain and database.
 */
describe('a crash (SIGKILL) with Permit2 exact settles in flight, then a restart', function () {
  this.timeout(240_000)
  let setUp: Permit2Chain
  before(async () => {
    setUp = await setUpPermit2Chain()
  })
  after(() => setUp?.stop())

  it('every payment recovered exactly once: the payee gets their sum, each payer pays its own once, one row each', async () => {
    const amounts = Array.from({ length: 12 }, (_, i) => 10_000n + BigInt(i))
    const payerOf = (i: number) => i % setUp.chain.payers.length
    const payments = await Promise.all(
      amounts.map(async (amount, i) => {
        const accepted = setUp.requirements('exact', amount)
        return { amount, payer: payerOf(i), body: setUp.body(await setUp.pay(payerOf(i), accepted), accepted) }
      }),
    )
    const payerAddress = (i: number) => setUp.chain.payers[i]!.address as Address
    const payersBefore = await Promise.all(setUp.chain.payers.map((_, i) => setUp.tokenBalance(payerAddress(i))))
    const payeeBefore = await setUp.tokenBalance(PAYEE)

    await killWithSettlesInFlight(
      setUp,
      payments.map((p) => p.body),
      6,
    )
    await chainBackToNormal(setUp.chain)
    const second = await restart(setUp)
    try {
      await finishedRows(setUp)
      // What recovery released (never broadcast) the caller settles again; what it settled is refused, moving nothing.
      const again = await Promise.all(payments.map((p) => postJson(`${second.url}/settle`, p.body)))
      for (const answer of again)
        expect(answer.body.success === true || answer.body.errorReason === 'authorization_already_used').to.equal(true)
      const rows = await finishedRows(setUp)
      for (const { body, amount } of payments) {
        const nonce = BigInt(
          (body.paymentPayload as { payload: { permit2Authorization: { nonce: string } } }).payload.permit2Authorization
            .nonce,
        )
        const settled = rows.filter((r) => BigInt(r.nonce!) === nonce && isSettled(r.state))
        expect(settled, `nonce ${nonce}`).to.have.length(1)
        expect(settled[0]!.value).to.equal(amount.toString())
        expect(await transfersIn(setUp, settled[0]!.tx_hash!, PAYEE)).to.deep.equal([amount])
      }
      const total = amounts.reduce((a, b) => a + b, 0n)
      expect(await setUp.tokenBalance(PAYEE)).to.equal(payeeBefore + total)
      for (const [i, before] of payersBefore.entries()) {
        const own = amounts.filter((_, j) => payerOf(j) === i).reduce((a, b) => a + b, 0n)
        expect(await setUp.tokenBalance(payerAddress(i)), `payer ${i}`).to.equal(before - own)
      }
      // Nothing settled twice: one transaction per settled row.
      const settledRows = rows.filter((r) => isSettled(r.state))
      expect(settledRows).to.have.length(amounts.length)
      expect(new Set(settledRows.map((r) => r.tx_hash)).size).to.equal(amounts.length)
    } finally {
      await second.kill('SIGKILL')
    }
  })
})
