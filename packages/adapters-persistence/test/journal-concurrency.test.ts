import { expect } from 'chai'
import type { ClaimResult, Settlement } from '@x402-facilitator/domain'
import {
  attempt,
  claimed,
  newPermit2Settlement,
  newSettlement,
  refOf,
  right,
  uniqueAddress,
  uniqueHex,
} from '@x402-facilitator/domain/journal-contract'
import { makePgSettlementJournal } from '../src/journal/pg-settlement-journal.js'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

/** The one winner's row; every other claim met it. */
const oneWinner = (results: ReadonlyArray<ClaimResult>): Settlement => {
  const winners = results.filter((r) => r._tag === 'Claimed')
  expect(winners).to.have.length(1)
  const winner = claimed(winners[0]!)
  for (const r of results) if (r._tag === 'Conflict') expect(r.existing).to.deep.include({ id: winner.id })
  return winner
}

describe('PgSettlementJournal: concurrent claims', () => {
  let database: JournalDatabase

  before(async () => {
    database = await journalDatabase()
    await database.db.knex('journal_networks').insert({ name: newSettlement().network, chain_id: 'eip155:84532' })
  })
  after(() => database.close())

  it('lets exactly one of 20 concurrent claims of one authorization win; the others see its row', async () => {
    const { db, journal } = database
    const input = newSettlement()
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => right(journal.claim({ ...input, idempotencyKey: `concurrent-${i}` }))),
    )
    const winners = results.filter((r) => r._tag === 'Claimed')
    expect(winners).to.have.length(1)
    const winner = claimed(winners[0]!)
    for (const r of results.filter((r) => r._tag === 'Conflict')) {
      if (r._tag === 'Conflict') expect(r.existing).to.deep.include({ id: winner.id, generation: 1, state: 'claimed' })
    }
    const count = await db
      .knex('settlements')
      .where({ nonce: input.nonce })
      .count<Array<{ count: string }>>('* as count')
    expect(count[0]?.count).to.equal('1')
  })

  // Journals of their own: their claims go in statements of their own, racing in Postgres (not queued in one batch).
  const racers = () => Array.from({ length: 10 }, () => makePgSettlementJournal(database.pool))

  it('credits one log of another transaction to one of 10 rows settled elsewhere at once; the others are payment-log-taken', async () => {
    const refs = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const ref = refOf(claimed(await right(database.journal.claim(newSettlement()))))
        expect(await right(database.journal.markSubmitted(ref, attempt()))).to.equal('applied')
        return ref
      }),
    )
    const paid = { txHash: uniqueHex(32), blockNumber: 90n, blockHash: uniqueHex(32), paymentLogIndex: 1 }
    const journals = racers()
    const answers = await Promise.all(
      refs.map((ref, i) => right(journals[i]!.markSettledElsewhere(ref, 'used by one multicall', paid))),
    )
    expect(answers.filter((a) => a === 'applied')).to.have.length(1)
    expect(answers.filter((a) => a === 'payment-log-taken')).to.have.length(9)
    const rows = await database.db.knex('settlements').where({ tx_hash: paid.txHash }).select('state')
    expect(rows).to.deep.equal([{ state: 'confirmed' }])
  })

  it('lets one of 10 concurrent claims of one Permit2 nonce on two tokens win: one row', async () => {
    const input = newPermit2Settlement()
    const tokens = [input.asset, '0x00000000000000000000000000000000000000a2'] as const
    const results = await Promise.all(
      racers().map((journal, i) => right(journal.claim({ ...input, asset: tokens[i % 2]! }))),
    )
    oneWinner(results)
    expect(await database.db.knex('settlements').where({ nonce: input.nonce }).count('* as count')).to.deep.equal([
      { count: '1' },
    ])
  })

  it('lets one of 10 concurrent Permit2 claims carrying one sponsored permit win', async () => {
    const payer = uniqueAddress()
    const permit = { value: 5n, nonce: 0n, deadline: 4_102_444_800n, signature: uniqueHex(65) }
    const results = await Promise.all(
      racers().map((journal) =>
        right(
          journal.claim(
            newPermit2Settlement({
              payer,
              permit2: { scheme: 'exact', permitted: 5n, spender: uniqueAddress(), sponsoredPermit: permit },
            }),
          ),
        ),
      ),
    )
    expect(oneWinner(results).permit2?.sponsoredPermit).to.deep.equal(permit)
  })

  it('lets one of 10 concurrent claims of a released row win', async () => {
    const { journal } = database
    const input = newSettlement()
    const first = claimed(await right(journal.claim(input)))
    await right(journal.markReleased(refOf(first), 'claimed', 'not broadcast'))
    const results = await Promise.all(Array.from({ length: 10 }, () => right(journal.claim(input))))
    expect(results.filter((r) => r._tag === 'Claimed')).to.have.length(1)
    for (const r of results) {
      const row = r._tag === 'Claimed' ? r.settlement : r.existing
      expect(row).to.deep.include({ generation: 2, state: 'claimed' })
    }
  })
})
