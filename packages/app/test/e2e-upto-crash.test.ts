import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { generatePrivateKey } from 'viem/accounts'
import { anvilRpc, chainBackToNormal, isSettled } from './support/chain-control.js'
import { postJson } from './support/json-client.js'
import {
  finishedRows,
  killWithSettlesInFlight,
  isNonceFiller,
  minedFromKeys,
  restart,
  setUpPermit2Chain,
  senderOf,
  transfersIn,
  type Permit2Chain,
} from './support/permit2-chain.js'
import { PAYEE } from './support/test-facilitator.js'
import { waitFor } from './support/wait-for.js'

const MAXIMUM = 5_000_000n

/**
 * `upto` payments (issue 26), made by @x402/evm 2.27's `UptoEvmScheme`, each settled for less than its maximum, with
 * the app killed (SIGKILL) while their transactions are in the node's pool; restarted with nothing mined, it replaces
 * what waits too long (fees raised), then the chain mines again. Recovery sends from the row: the amount asked.
 */
for (const poolSize of [1, 3])
  describe(`a crash (SIGKILL) with upto settles in flight, then a restart that replaces the stuck transactions${poolSize > 1 ? `, witnesses naming each of ${poolSize} keys` : ''}`, function () {
    this.timeout(240_000)
    let setUp: Permit2Chain
    before(async () => {
      setUp = await setUpPermit2Chain(Array.from({ length: poolSize - 1 }, () => generatePrivateKey()))
    })
    after(() => setUp?.stop())

    it('each payment charged once at the amount asked, never the maximum; a replacement moves the amount asked', async () => {
      const asked = Array.from({ length: 10 }, (_, i) => 1_000_000n + 1_111n * BigInt(i))
      const payerOf = (i: number) => i % setUp.chain.payers.length
      const payments = await Promise.all(
        asked.map(async (amount, i) => {
          const key = setUp.keys[i % setUp.keys.length]!
          const maximum = setUp.requirements('upto', MAXIMUM, { facilitatorAddress: key })
          const payload = await setUp.pay(payerOf(i), maximum)
          const nonce = BigInt(
            (payload.payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce,
          )
          return { key, amount, nonce, body: setUp.body(payload, { ...maximum, amount: amount.toString() }) }
        }),
      )
      const payerAddress = (i: number) => setUp.chain.payers[i]!.address as Address
      const payersBefore = await Promise.all(setUp.chain.payers.map((_, i) => setUp.tokenBalance(payerAddress(i))))
      const payeeBefore = await setUp.tokenBalance(PAYEE)

      await killWithSettlesInFlight(
        setUp,
        payments.map((p) => p.body),
        5,
      )
      // Still nothing mined: the restarted app finds its transactions waiting past REPLACE_AFTER_MS and replaces them.
      const second = await restart(setUp, { ...setUp.env, REPLACE_AFTER_MS: '500' })
      try {
        type Attempt = { settlement_id: string; tx_hash: string }
        const replaced = await waitFor('a transaction replaced', async () => {
          const attempts = (await setUp.db.knex('settlement_attempts').select('*').orderBy('id')) as Attempt[]
          const ids = attempts.map((a) => a.settlement_id)
          const id = ids.find((x, i) => ids.indexOf(x) !== i)
          return id === undefined ? undefined : attempts.filter((a) => a.settlement_id === id)
        })
        await chainBackToNormal(setUp.chain)
        await anvilRpc(setUp.chain.rpcUrl, 'evm_mine')
        await finishedRows(setUp)
        const again = await Promise.all(payments.map((p) => postJson(`${second.url}/settle`, p.body)))
        for (const answer of again)
          expect(answer.body.success === true || answer.body.errorReason === 'authorization_already_used').to.equal(
            true,
          )
        const rows = await finishedRows(setUp)

        for (const { key, nonce, amount } of payments) {
          const settled = rows.filter((r) => BigInt(r.nonce!) === nonce && isSettled(r.state))
          expect(settled, `nonce ${nonce}`).to.have.length(1)
          expect(settled[0]).to.deep.include({ value: amount.toString(), owner: key })
          // Sent by the key the witness names, whichever process or pass sent it.
          expect(await senderOf(setUp.chain.rpcUrl, settled[0]!.tx_hash!)).to.equal(key)
          expect(await transfersIn(setUp, settled[0]!.tx_hash!, PAYEE)).to.deep.equal([amount])
        }
        // The replaced row settled by a replacement (the first attempt left the pool), which moved the amount asked.
        const row = rows.find((r) => String(r.id) === String(replaced[0]!.settlement_id))!
        const attempts = (await setUp.db.knex('settlement_attempts').where({ settlement_id: row.id })) as Attempt[]
        expect(attempts.map((a) => a.tx_hash)).to.include(row.tx_hash)
        expect(row.tx_hash).to.not.equal(replaced[0]!.tx_hash)
        const payment = payments.find((p) => BigInt(row.nonce!) === p.nonce)!
        expect(await transfersIn(setUp, row.tx_hash!, PAYEE)).to.deep.equal([payment.amount])

        const total = asked.reduce((a, b) => a + b, 0n)
        expect(await setUp.tokenBalance(PAYEE)).to.equal(payeeBefore + total)
        for (const [i, before] of payersBefore.entries()) {
          const own = asked.filter((_, j) => payerOf(j) === i).reduce((a, b) => a + b, 0n)
          expect(await setUp.tokenBalance(payerAddress(i)), `payer ${i}`).to.equal(before - own)
        }
        const settledTxs = rows.filter((r) => isSettled(r.state)).map((r) => r.tx_hash)
        expect(settledTxs).to.have.length(asked.length)
        // Every transaction our keys got mined is a settled row's or a nonce filler: nothing sent twice, none reverted.
        for (const tx of await minedFromKeys(setUp))
          expect(settledTxs.includes(tx.hash) ? !tx.reverted : isNonceFiller(tx), `mined ${tx.hash}`).to.equal(true)
      } finally {
        await second.kill('SIGKILL')
        await chainBackToNormal(setUp.chain)
      }
    })
  })
