import { expect } from 'chai'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { generatePrivateKey } from 'viem/accounts'
import { anvilRpc, chainBackToNormal, isSettled } from './support/chain-control.js'
import { postJson } from './support/json-client.js'
import {
  finishedRows,
  killWithSettlesInFlight,
  restart,
  isNonceFiller,
  minedFromKeys,
  senderOf,
  setUpPermit2Chain,
  transfersIn,
  type Permit2Chain,
  type Row,
} from './support/permit2-chain.js'
import { cancelPermit2Nonce } from './support/permit2-payer-actions.js'
import { PAYEE } from './support/test-facilitator.js'

const CASES = [
  { lostPool: false, poolSize: 1, what: '' },
  { lostPool: false, poolSize: 3, what: ', three signing keys' },
  // The node restarted too: its pool is gone; meanwhile one payer cancelled a payment broadcast before the crash.
  { lostPool: true, poolSize: 1, what: ', the node losing its pool and a payer cancelling one payment meanwhile' },
]

/**
 * Permit2 `exact` payments (issue 26), made by @x402/evm 2.27's `ExactEvmScheme`, with the app killed (SIGKILL) while
 * their transactions are in the node's pool, then restarted on the same chain and database.
 */
for (const { lostPool, poolSize, what } of CASES)
  describe(`a crash (SIGKILL) with Permit2 exact settles in flight, then a restart${what}`, function () {
    this.timeout(240_000)
    let setUp: Permit2Chain
    before(async () => {
      setUp = await setUpPermit2Chain(Array.from({ length: poolSize - 1 }, () => generatePrivateKey()))
    })
    after(() => setUp?.stop())

    it('every payment recovered exactly once: the payee gets their sum, each payer pays its own once, one row each', async () => {
      const amounts = Array.from({ length: 12 }, (_, i) => 10_000n + BigInt(i))
      const payerOf = (i: number) => i % setUp.chain.payers.length
      const payments = await Promise.all(
        amounts.map(async (amount, i) => {
          const accepted = setUp.requirements('exact', amount)
          const payload = await setUp.pay(payerOf(i), accepted)
          const nonce = BigInt(
            (payload.payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce,
          )
          return { amount, payer: payerOf(i), nonce, body: setUp.body(payload, accepted) }
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
      let cancelled: (typeof payments)[number] | undefined
      if (lostPool) {
        await anvilRpc(setUp.chain.rpcUrl, 'anvil_dropAllTransactions')
        const broadcast = (await setUp.rows()).find((r) => r.state === 'submitted')!
        cancelled = payments.find((p) => p.nonce === BigInt(broadcast.nonce!))!
        await chainBackToNormal(setUp.chain)
        await cancelPermit2Nonce(setUp.chain.rpcUrl, payerAddress(cancelled.payer), cancelled.nonce)
      } else await chainBackToNormal(setUp.chain)
      const second = await restart(setUp)
      try {
        await finishedRows(setUp)
        // What recovery released (never broadcast) the caller settles again; what it settled is refused, moving nothing.
        const again = await Promise.all(payments.map((p) => postJson(`${second.url}/settle`, p.body)))
        for (const [i, answer] of again.entries())
          expect(
            payments[i] === cancelled
              ? answer.body.success === false
              : answer.body.success === true || answer.body.errorReason === 'authorization_already_used',
            JSON.stringify(answer.body),
          ).to.equal(true)
        const rows = await finishedRows(setUp)
        const paid = payments.filter((p) => p !== cancelled)
        for (const { nonce, amount } of paid) {
          const settled = rows.filter((r) => BigInt(r.nonce!) === nonce && isSettled(r.state))
          expect(settled, `nonce ${nonce}`).to.have.length(1)
          expect(settled[0]!.value).to.equal(amount.toString())
          expect(await transfersIn(setUp, settled[0]!.tx_hash!, PAYEE)).to.deep.equal([amount])
        }
        if (cancelled !== undefined)
          expect(rows.filter((r) => BigInt(r.nonce!) === cancelled.nonce).map((r) => r.state)).to.deep.equal([
            'cancelled',
          ])
        const total = paid.reduce((sum, p) => sum + p.amount, 0n)
        expect(await setUp.tokenBalance(PAYEE)).to.equal(payeeBefore + total)
        for (const [i, before] of payersBefore.entries()) {
          const own = paid.filter((p) => p.payer === i).reduce((sum, p) => sum + p.amount, 0n)
          expect(await setUp.tokenBalance(payerAddress(i)), `payer ${i}`).to.equal(before - own)
        }
        // Nothing settled twice: one transaction per settled row.
        const settledRows = rows.filter((r) => isSettled(r.state))
        expect(settledRows).to.have.length(paid.length)
        expect(new Set(settledRows.map((r) => r.tx_hash)).size).to.equal(paid.length)
        // Each sent by the key that owns its row (any of the pool's for `exact`).
        for (const row of settledRows) expect(await senderOf(setUp.chain.rpcUrl, row.tx_hash!)).to.equal(row.owner)
        // Every transaction our keys got mined is a settled row's, a nonce filler, or the cancelled payment's stored
        // one sent again by recovery (it reverts): nothing sent twice, nothing unrecorded.
        const attempts = (await setUp.db.knex('settlement_attempts').select('tx_hash', 'settlement_id')) as Row[]
        const cancelledIds = rows.filter((r) => r.state === 'cancelled').map((r) => String(r.id))
        const cancelledTxs = attempts
          .filter((a) => cancelledIds.includes(String(a.settlement_id)))
          .map((a) => a.tx_hash)
        const mined = await minedFromKeys(setUp)
        const settledTxs = settledRows.map((r) => r.tx_hash)
        for (const tx of mined) {
          const known = settledTxs.includes(tx.hash)
            ? !tx.reverted
            : isNonceFiller(tx) || cancelledTxs.includes(tx.hash)
          expect(known, `mined ${tx.hash}`).to.equal(true)
        }
        expect(mined.filter((tx) => settledTxs.includes(tx.hash))).to.have.length(paid.length)
      } finally {
        await second.kill('SIGKILL')
      }
    })
  })
