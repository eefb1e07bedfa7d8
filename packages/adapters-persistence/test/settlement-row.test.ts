import { expect } from 'chai'
import { attempt, claimed, left, newSettlement, refOf, right } from '@x402-facilitator/domain/journal-contract'
import { decodeSettlementRow } from '../src/journal/settlement-row.js'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

const at = new Date('2025-01-02T03:04:05.678Z')

/** A row as node-postgres hands it over: numeric and bigint as text, timestamptz as Date, the attempts as JSON. */
const row = (overrides: Record<string, unknown> = {}) => ({
  id: '7',
  network: 'eip155:84532',
  asset: `0x${'1a'.repeat(20)}`,
  payer: `0x${'2b'.repeat(20)}`,
  nonce: `0x${'3c'.repeat(32)}`,
  payee: `0x${'4d'.repeat(20)}`,
  value: '1000000',
  valid_after: '0',
  valid_before: '4102444800',
  signature: `0x${'5e'.repeat(65)}`,
  requirements: {},
  state: 'submitted',
  generation: 2,
  owner: `0x${'6f'.repeat(20)}`,
  idempotency_key: null,
  request_hash: 'hash-1',
  caller: null,
  success_answered_by: null,
  tx_hash: `0x${'70'.repeat(32)}`,
  block_number: null,
  block_hash: null,
  payment_log_index: null,
  reorged_at: null,
  refusals: 0,
  first_refused_at: null,
  watch_ended_at: null,
  nonce_space: `0x${'1a'.repeat(20)}`,
  permit2: null,
  gas_used: null,
  error: null,
  created_at: at,
  claimed_at: at,
  updated_at: at,
  attempts: [
    {
      tx_hash: `0x${'70'.repeat(32)}`,
      raw: '0x02f8',
      account_nonce: '18446744073709551615',
      max_fee_per_gas: '2000000000',
      max_priority_fee_per_gas: '1000000',
      sent_at: '2025-01-02T03:04:05.678+00:00',
      batch_index: null,
    },
  ],
  ...overrides,
})

const failure = (bad: Record<string, unknown>): string => {
  try {
    decodeSettlementRow(row(bad))
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error('expected the row to fail decoding')
}

describe('settlements rows are decoded, not cast', () => {
  it('decodes a row: amounts as bigints, a NULL column left out, attempts with their dates', () => {
    const settlement = decodeSettlementRow(row())
    expect(settlement).to.deep.include({
      id: '7',
      generation: 2,
      state: 'submitted',
      value: 1_000_000n,
      requestHash: 'hash-1',
    })
    expect(settlement.attempts).to.deep.equal([
      {
        txHash: `0x${'70'.repeat(32)}`,
        raw: '0x02f8',
        accountNonce: 2n ** 64n - 1n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
        sentAt: at,
      },
    ])
    expect(Object.keys(settlement)).to.not.include.members(['idempotencyKey', 'blockNumber', 'gasUsed', 'error'])
  })

  it("decodes a Permit2 row's terms: amounts as bigints, absent ones left out", () => {
    const spender = `0x${'7a'.repeat(20)}`
    const max = ((1n << 256n) - 1n).toString()
    const permit = { value: max, nonce: '0', deadline: '4102444800', signature: `0x${'8b'.repeat(65)}` }
    const terms = { scheme: 'upto', permitted: max, spender, sponsored_permit: permit }
    expect(decodeSettlementRow(row({ permit2: terms })).permit2).to.deep.equal({
      scheme: 'upto',
      permitted: (1n << 256n) - 1n,
      spender,
      sponsoredPermit: { value: (1n << 256n) - 1n, nonce: 0n, deadline: 4_102_444_800n, signature: permit.signature },
    })
    expect(Object.keys(decodeSettlementRow(row()))).to.not.include('permit2')
  })

  it('fails naming the column (and the attempt field) that holds a bad value', () => {
    expect(failure({ asset: '0x1234' })).to.equal(
      'a settlements row does not decode: asset: expected an address (0x hex or base58), got "0x1234"',
    )
    expect(failure({ state: 'lost' })).to.match(/^a settlements row does not decode: state: /)
    expect(failure({ value: '-1' })).to.match(/: value: expected a non-negative integer string, got "-1"$/)
    expect(failure({ gas_used: 12 })).to.match(/: gas_used: /)
    expect(failure({ updated_at: 'yesterday' })).to.match(/: updated_at: expected a timestamp/)
    expect(failure({ permit2: { scheme: 'exact', permitted: 1_000_000, spender: `0x${'7a'.repeat(20)}` } })).to.match(
      /: permit2\.0\.permitted: expected a non-negative integer string, got 1000000$/,
    )
    expect(failure({ attempts: [{ ...row().attempts[0], raw: '0x2' }] })).to.match(
      /: attempts\.0\.raw: expected bytes \(0x hex or base64\), got "0x2"$/,
    )
  })

  describe('through Postgres', () => {
    let database: JournalDatabase
    before(async () => {
      database = await journalDatabase()
    })
    after(() => database.close())

    it('a stored value that does not decode answers JournalUnavailable naming its column, not a wrong row', async () => {
      const { db, journal } = database
      const input = newSettlement()
      const settlement = claimed(await right(journal.claim(input)))
      const sent = attempt()
      await right(journal.markSubmitted(refOf(settlement), sent))
      // Half a byte: the column's check lets it through, the decoder does not.
      await db.knex('settlement_attempts').where({ tx_hash: sent.txHash }).update({ raw: '0xabc' })
      const failed = await left(journal.findByKey(input))
      expect(failed.reason).to.equal(
        'findByKey: a settlements row does not decode: attempts.0.raw: expected bytes (0x hex or base64), got "0xabc"',
      )
    })
  })
})
