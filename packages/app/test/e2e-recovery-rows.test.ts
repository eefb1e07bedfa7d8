import { expect } from 'chai'
import { replicaLockKey } from '@x402-facilitator/adapters-persistence/testing'
import { anvilRpc, hasPendingTransaction, isSettled, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const metricsOf = async (f: TestFacilitator) => (await fetch(`${new URL(f.base).origin}/metrics`)).text()
/** How many recovery passes have read the journal so far (each starts with findUnfinished). */
const passes = async (f: TestFacilitator) => {
  const line = (await metricsOf(f))
    .split('\n')
    .find((l) =>
      l.startsWith(
        `facilitator_journal_call_duration_seconds_count{network="eip155:${f.chain.chainId}",call="findUnfinished",outcome="success"}`,
      ),
    )
  return line === undefined ? 0 : Number(line.split(' ').pop())
}

describe('recovery and the settles it must leave alone, the rows it must not miss (real app)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({
      RECOVERY_INTERVAL_MS: '300',
      REPLACE_AFTER_MS: '500',
      RECEIPT_TIMEOUT_SECONDS: '10',
      RPC_TIMEOUT_MS: '1000',
    })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('a settle still waiting for its receipt is not replaced under it: the block mined, it answers success with its own transaction', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 0 })
    body.paymentRequirements.maxTimeoutSeconds = 10
    const answer = f.post('settle', body)
    await waitFor('the transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    // Several passes, each long past REPLACE_AFTER_MS for this attempt, while the settle waits.
    const seen = await passes(f)
    await waitFor('four recovery passes', async () => ((await passes(f)) >= seen + 4 ? true : undefined))
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    const res = await answer
    expect(res.status).to.equal(200)
    expect(res.body).to.include({ success: true })
    const row = (await f.rows()).find((r) => r.tx_hash === res.body.txHash)
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
    expect(
      await f.db
        .knex('settlement_attempts')
        .where({ settlement_id: row!.id })
        .count<Array<{ count: string }>>('* as count'),
    ).to.deep.equal([{ count: '1' }])
  })

  it('150 old rows of a live replica come first, yet recovery finishes ours behind them', async () => {
    const live = '0x000000000000000000000000000000000000a11e'
    await f.db.knex.raw(
      `insert into settlements (network, asset, payer, nonce, payee, value, valid_after, valid_before, signature,
         requirements, state, owner, updated_at)
       select 'eip155:31337', ?, ?, '0x' || lpad(to_hex(n), 64, '0'), ?, 1, 0, 1, '0x00', '{}'::jsonb, 'claimed', ?,
         now() - interval '1 day'
       from generate_series(1, 150) n`,
      [f.chain.tokenAddress.toLowerCase(), live, live, live],
    )
    await f.db.knex.transaction(async (trx) => {
      // That replica holds its lock for as long as this transaction lives.
      await trx.raw('select pg_advisory_xact_lock(?::bigint)', [replicaLockKey('eip155:31337', live)])
      await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
      const body = await f.payment({ payer: 1 })
      body.paymentRequirements.maxTimeoutSeconds = 1
      const res = await f.post('settle', body)
      expect(res.status).to.equal(202)
      await anvilRpc(f.chain.rpcUrl, 'evm_mine')
      await waitFor('our row confirmed by recovery', async () => {
        const row = (await f.rows()).find((r) => r.tx_hash === res.body.txHash)
        return isSettled(row?.state) ? row : undefined
      })
      // The live replica's rows are its own business: untouched.
      expect(
        (
          await trx('settlements')
            .where({ owner: live, state: 'claimed' })
            .count<Array<{ count: string }>>('* as count')
        )[0]!.count,
      ).to.equal('150')
    })
  })
})
