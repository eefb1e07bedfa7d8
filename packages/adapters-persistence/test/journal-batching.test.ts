import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { Settlement, SettlementJournal, TransferReceipt, TxHash } from '@x402-facilitator/domain'
import {
  attempt,
  claimed,
  left,
  newSettlement,
  receipt,
  refOf,
  right,
  uniqueHex,
} from '@x402-facilitator/domain/journal-contract'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

const receiptIn = (txHash: TxHash, blockNumber: bigint, succeeded = true): TransferReceipt =>
  receipt(txHash, {
    blockNumber,
    gasUsed: 60_000n + blockNumber,
    succeeded,
    revertReason: succeeded ? undefined : 'FiatTokenV2: invalid signature',
  })

describe('PgSettlementJournal: calls of one tick share one statement', () => {
  let database: JournalDatabase
  let journal: SettlementJournal
  let statements = 0

  before(async () => {
    database = await journalDatabase({ onStatement: () => statements++ })
    journal = database.journal
  })
  after(() => database.close())

  const counted = async <A>(run: () => Promise<A>): Promise<[A, number]> => {
    const before = statements
    const result = await run()
    return [result, statements - before]
  }

  const load = async (settlement: Settlement): Promise<Settlement> => {
    const found = await right(journal.findByKey(settlement))
    if (O.isNone(found)) throw new Error('row vanished')
    return found.value
  }

  it('claims: each new authorization claimed, a taken one and a repeat within the batch answered with the existing row', async () => {
    const takenSettlement = newSettlement()
    const taken = claimed(await right(journal.claim(takenSettlement)))
    const fresh = Array.from({ length: 8 }, () => newSettlement())
    const [results, used] = await counted(() =>
      Promise.all([
        ...fresh.map((s) => right(journal.claim(s))),
        right(journal.claim(takenSettlement)),
        right(journal.claim(fresh[0]!)),
      ]),
    )
    results.slice(0, 8).forEach((result, i) => {
      const row = claimed(result)
      expect(row).to.deep.include({
        nonce: fresh[i]!.nonce,
        payer: fresh[i]!.payer,
        value: fresh[i]!.value,
        state: 'claimed',
        generation: 1,
      })
    })
    expect(results[8]).to.deep.include({ _tag: 'Conflict' })
    expect(results[8]!._tag === 'Conflict' && results[8]!.existing.id).to.equal(taken.id)
    // The repeat of fresh[0] waits for the batch that claims it, then sees that row.
    expect(results[9]!._tag === 'Conflict' && results[9]!.existing.id).to.equal(claimed(results[0]!).id)
    expect(used).to.equal(2)
  })

  it('success marks: one statement for many rows; a second mark of one row goes in its own and is stale', async () => {
    const rows = await Promise.all(
      Array.from({ length: 6 }, async () => claimed(await right(journal.claim(newSettlement())))),
    )
    const [results, used] = await counted(() =>
      Promise.all([
        ...rows.map((row, i) => right(journal.markSuccessAnswered(row.id, `answer-${i}`))),
        right(journal.markSuccessAnswered(rows[0]!.id, 'late')),
      ]),
    )
    expect(results).to.deep.equal(['applied', 'applied', 'applied', 'applied', 'applied', 'applied', 'stale'])
    expect(used).to.equal(2)
    expect((await load(rows[0]!)).successAnsweredBy).to.equal('answer-0')
  })

  it('a released row in a batch is claimed again (generation + 1) next to new ones', async () => {
    const released = newSettlement()
    const first = claimed(await right(journal.claim(released)))
    await right(journal.markReleased(refOf(first), 'claimed', 'test'))
    const other = newSettlement()
    const [[again, next], used] = await counted(() =>
      Promise.all([right(journal.claim(released)), right(journal.claim(other))]),
    )
    expect(claimed(again!)).to.deep.include({ id: first.id, generation: 2, state: 'claimed' })
    expect(claimed(next!)).to.deep.include({ nonce: other.nonce, generation: 1 })
    expect(used).to.equal(1)
  })

  it('markSubmitted: the claimed rows move with their attempts, a stale reference writes nothing', async () => {
    const rows = await Promise.all(Array.from({ length: 6 }, () => right(journal.claim(newSettlement())).then(claimed)))
    const attempts = rows.map(() => attempt())
    const [results, used] = await counted(() =>
      Promise.all([
        ...rows.map((row, i) => right(journal.markSubmitted(refOf(row), attempts[i]!))),
        right(journal.markSubmitted({ ...refOf(rows[0]!), generation: 2 }, attempt())),
      ]),
    )
    expect(results).to.deep.equal(['applied', 'applied', 'applied', 'applied', 'applied', 'applied', 'stale'])
    expect(used).to.equal(2)
    for (const [i, row] of rows.entries()) {
      const now = await load(row)
      expect(now).to.deep.include({ state: 'submitted', txHash: attempts[i]!.txHash })
      expect(now.attempts).to.deep.equal([attempts[i]])
    }
  })

  it('markMined: each row gets its own receipt; an unknown transaction is stale', async () => {
    const rows = await Promise.all(Array.from({ length: 5 }, () => right(journal.claim(newSettlement())).then(claimed)))
    const attempts = rows.map(() => attempt())
    await Promise.all(rows.map((row, i) => right(journal.markSubmitted(refOf(row), attempts[i]!))))
    const receipts = attempts.map((a, i) => receiptIn(a.txHash, 100n + BigInt(i), i !== 3))
    const [results, used] = await counted(() =>
      Promise.all([
        ...rows.map((row, i) => right(journal.markMined(refOf(row), receipts[i]!))),
        right(journal.markMined(refOf(rows[0]!), receiptIn(uniqueHex(32), 1n))),
      ]),
    )
    // The unknown hash names the same row as the first call: it goes in a second statement, after the row is final.
    expect(results).to.deep.equal(['applied', 'applied', 'applied', 'applied', 'applied', 'stale'])
    expect(used).to.equal(2)
    for (const [i, row] of rows.entries()) {
      const now = await load(row)
      expect(now).to.deep.include({
        state: i === 3 ? 'reverted' : 'confirmed',
        txHash: attempts[i]!.txHash,
        blockNumber: 100n + BigInt(i),
        gasUsed: 60_100n + BigInt(i),
      })
      expect(now.error).to.equal(i === 3 ? 'FiatTokenV2: invalid signature' : undefined)
    }
  })

  it('markMined with answer ids: one statement carries each row its own answer id (or none); a row marked already keeps its mark', async () => {
    const rows = await Promise.all(Array.from({ length: 4 }, () => right(journal.claim(newSettlement())).then(claimed)))
    const attempts = rows.map(() => attempt())
    await Promise.all(rows.map((row, i) => right(journal.markSubmitted(refOf(row), attempts[i]!))))
    expect(await right(journal.markSuccessAnswered(rows[2]!.id, 'replay'))).to.equal('applied')
    const [results, used] = await counted(() =>
      Promise.all([
        right(journal.markMined(refOf(rows[0]!), receiptIn(attempts[0]!.txHash, 200n), 'answer-0')),
        right(journal.markMined(refOf(rows[1]!), receiptIn(attempts[1]!.txHash, 201n))),
        right(journal.markMined(refOf(rows[2]!), receiptIn(attempts[2]!.txHash, 202n), 'answer-2')),
        right(journal.markMined(refOf(rows[3]!), receiptIn(attempts[3]!.txHash, 203n), 'answer-3')),
      ]),
    )
    expect(results).to.deep.equal([
      { transition: 'applied', successMarked: true },
      'applied',
      { transition: 'applied', successMarked: false },
      { transition: 'applied', successMarked: true },
    ])
    expect(used).to.equal(1)
    const marks = await Promise.all(rows.map(async (row) => (await load(row)).successAnsweredBy))
    expect(marks).to.deep.equal(['answer-0', undefined, 'replay', 'answer-3'])
  })

  it('one call the database refuses fails alone: the others of its batch are stored', async () => {
    const rows = await Promise.all(Array.from({ length: 3 }, () => right(journal.claim(newSettlement())).then(claimed)))
    // An account nonce past 2^64 - 1: the check constraint refuses it, and with it the batched statement.
    const outcomes = await Promise.all([
      right(journal.markSubmitted(refOf(rows[0]!), attempt())),
      left(journal.markSubmitted(refOf(rows[1]!), attempt({ accountNonce: 2n ** 64n }))),
      right(journal.markSubmitted(refOf(rows[2]!), attempt())),
    ])
    expect(outcomes[0]).to.equal('applied')
    expect(outcomes[1]).to.deep.include({ _tag: 'JournalUnavailable' })
    expect(outcomes[1])
      .to.have.property('reason')
      .that.matches(/check constraint/)
    expect(outcomes[2]).to.equal('applied')
    expect((await load(rows[1]!)).state).to.equal('claimed')
  })

  it('two rows of one batch naming one transaction hash: neither stored, the other calls are', async () => {
    const rows = await Promise.all(Array.from({ length: 3 }, () => right(journal.claim(newSettlement())).then(claimed)))
    const shared = attempt()
    const outcomes = await Promise.all([
      right(journal.markSubmitted(refOf(rows[0]!), shared)),
      right(journal.markSubmitted(refOf(rows[1]!), { ...attempt(), txHash: shared.txHash })),
      right(journal.markSubmitted(refOf(rows[2]!), attempt())),
    ])
    expect(outcomes).to.deep.equal(['stale', 'stale', 'applied'])
    expect(await right(journal.findByTxHash(shared.txHash))).to.deep.equal(O.none)
  })
})
