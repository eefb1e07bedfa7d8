import { expect } from 'chai'
import type { Address, ClaimResult, NewSettlement, Settlement } from '@x402-facilitator/domain'
import {
  EXACT_PROXY,
  claimed,
  keyOf,
  newPermit2Settlement,
  newSettlement,
  right,
  uniqueAddress,
  uniqueHex,
} from '@x402-facilitator/domain/journal-contract'
import { type JournalDatabase, journalDatabase } from './journal-database.js'

const otherToken: Address = '0x00000000000000000000000000000000000000a2'

const conflictWith = (result: ClaimResult, winner: Settlement): void => {
  if (result._tag !== 'Conflict') throw new Error(`expected Conflict, got ${result._tag}`)
  expect(result.existing).to.deep.include({ id: winner.id, generation: winner.generation, asset: winner.asset })
}

/** A Permit2 payment of `payer` carrying the sponsored EIP-2612 permit of token nonce `permitNonce`. */
const sponsored = (payer: Address, permitNonce: bigint): NewSettlement =>
  newPermit2Settlement({
    payer,
    permit2: {
      scheme: 'exact',
      permitted: 1_000_000n,
      spender: EXACT_PROXY,
      sponsoredPermit: { value: 1_000_000n, nonce: permitNonce, deadline: 4_102_444_800n, signature: uniqueHex(65) },
    },
  })

// docs/ARCHITECTURE.md §5, "Journal writes, one statement per tick" and "Nonce spaces".
describe('PgSettlementJournal: Permit2 claims of one tick share one statement', () => {
  let database: JournalDatabase
  let statements = 0

  before(async () => {
    database = await journalDatabase({ onStatement: () => statements++ })
    // A Permit2 row needs its chain: the unscoped journal takes it from its network's record.
    await database.db.knex('journal_networks').insert({ name: newSettlement().network, chain_id: 'eip155:84532' })
  })
  after(() => database.close())

  const counted = async <A>(run: () => Promise<A>): Promise<[A, number]> => {
    const before = statements
    const result = await run()
    return [result, statements - before]
  }
  const rowsOf = async (nonce: string) => database.db.knex('settlements').where({ nonce }).select('id')

  it('distinct Permit2 nonces (one waived, one sponsored, one on another token): all claimed in one statement', async () => {
    const claims = [
      newPermit2Settlement(),
      newPermit2Settlement({ asset: otherToken }),
      newPermit2Settlement({ waived: true, value: 0n }),
      sponsored(uniqueAddress(), 0n),
      ...Array.from({ length: 4 }, () => newPermit2Settlement()),
    ]
    const [results, used] = await counted(() => Promise.all(claims.map((c) => right(database.journal.claim(c)))))
    results.forEach((result, i) => {
      const row = claimed(result)
      expect(row).to.deep.include({ ...keyOf(claims[i]!), generation: 1, value: claims[i]!.value })
      expect(row.state).to.equal(claims[i]!.waived === true ? 'waived' : 'claimed')
      expect(row.permit2).to.deep.equal(claims[i]!.permit2)
    })
    expect(used).to.equal(1)
  })

  it('claims of one tick colliding with each other: the first claimed, each other one Conflict with it', async () => {
    const payer = uniqueAddress()
    const first = newPermit2Settlement()
    const permitHolder = sponsored(payer, 7n)
    const claims = [
      first,
      // The same Permit2 nonce on another token: the same row.
      { ...first, asset: otherToken, owner: uniqueAddress() },
      permitHolder,
      // Another Permit2 nonce carrying the same sponsored permit.
      sponsored(payer, 7n),
      // An EIP-3009 authorization of the first's token with the same 32 bytes: the old key, another nonce space.
      newSettlement(keyOf(first)),
    ]
    const [results, used] = await counted(() => Promise.all(claims.map((c) => right(database.journal.claim(c)))))
    const winner = claimed(results[0]!)
    const holder = claimed(results[2]!)
    conflictWith(results[1]!, winner)
    conflictWith(results[3]!, holder)
    conflictWith(results[4]!, winner)
    expect(await rowsOf(first.nonce)).to.have.length(1)
    expect(await rowsOf(claims[3]!.nonce)).to.have.length(0)
    // The first and the holder in one statement; the three colliding calls in the next tick's statements: the two
    // Permit2 claims in one, the EIP-3009 one in its own.
    expect(used).to.equal(3)
  })

  it('journals racing with batches of their own: a race lost to another writer is never a failure', async () => {
    const payer = uniqueAddress()
    const shared = newPermit2Settlement()
    const journals = Array.from({ length: 6 }, () => database.makeJournal({ onStatement: () => statements++ }))
    const outcomes = await Promise.all(
      journals.map((journal, i) =>
        Promise.all([
          right(journal.claim(newPermit2Settlement())),
          right(journal.claim({ ...shared, asset: i % 2 === 0 ? shared.asset : otherToken })),
          right(journal.claim(sponsored(payer, 1n))),
        ]),
      ),
    )
    for (const [own] of outcomes) expect(own._tag).to.equal('Claimed')
    for (const column of [1, 2]) {
      const winners = outcomes.map((o) => o[column]!).filter((r) => r._tag === 'Claimed')
      expect(winners).to.have.length(1)
      for (const o of outcomes) if (o[column]!._tag === 'Conflict') conflictWith(o[column]!, claimed(winners[0]!))
    }
    expect(await rowsOf(shared.nonce)).to.have.length(1)
  })
})
