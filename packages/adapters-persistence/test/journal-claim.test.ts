import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { ClaimResult, SettlementJournal } from '@x402-facilitator/domain'
import { makeKnexSettlementJournal } from '../src/knex-settlement-journal.js'
import { createTestDatabase, type TestDatabase } from '../src/test-database.js'
import {
  UINT256_MAX,
  attempt,
  newSettlement,
  otherFacilitator,
  randomAddress,
  randomHex,
  refOf,
  right,
} from './samples.js'

const claimed = (result: ClaimResult) => {
  if (result._tag !== 'Claimed') throw new Error(`expected Claimed, got ${result._tag}`)
  return result.settlement
}

describe('KnexSettlementJournal: claim and look-ups', () => {
  let db: TestDatabase
  let journal: SettlementJournal

  before(async () => {
    db = await createTestDatabase()
    journal = makeKnexSettlementJournal(db.knex)
  })
  after(() => db.drop())

  it('claims a new authorization: generation 1, state claimed, no attempts', async () => {
    const input = newSettlement({ idempotencyKey: 'key-1', requestHash: 'hash-1' })
    const settlement = claimed(await right(journal.claim(input)))
    expect(settlement).to.deep.include({
      state: 'claimed',
      generation: 1,
      network: input.network,
      asset: input.asset,
      payer: input.payer,
      nonce: input.nonce,
      payee: input.payee,
      value: input.value,
      validAfter: input.validAfter,
      validBefore: input.validBefore,
      signature: input.signature,
      owner: input.owner,
      idempotencyKey: 'key-1',
      requestHash: 'hash-1',
    })
    expect(settlement.id).to.be.a('string')
    expect(settlement.attempts).to.deep.equal([])
    expect(settlement.txHash).to.equal(undefined)
    expect(settlement.createdAt).to.be.instanceOf(Date)
    expect(settlement.updatedAt).to.be.instanceOf(Date)
  })

  it('round-trips uint256 max for value, validAfter and validBefore, and huge fees', async () => {
    const input = newSettlement({ value: UINT256_MAX, validAfter: UINT256_MAX, validBefore: UINT256_MAX })
    const settlement = claimed(await right(journal.claim(input)))
    expect([settlement.value, settlement.validAfter, settlement.validBefore]).to.deep.equal([
      UINT256_MAX,
      UINT256_MAX,
      UINT256_MAX,
    ])
    const big = attempt({ maxFeePerGas: UINT256_MAX, maxPriorityFeePerGas: UINT256_MAX - 1n, accountNonce: 2n ** 64n - 1n })
    expect(await right(journal.markSubmitted(refOf(settlement), big))).to.equal('applied')
    const found = await right(journal.findByKey(input))
    expect(O.isSome(found) && found.value.value).to.equal(UINT256_MAX)
    expect(O.isSome(found) && found.value.attempts[0]).to.deep.equal(big)
  })

  it('answers a duplicate with Conflict and the existing row, its state, attempts and tx hash', async () => {
    const input = newSettlement()
    const first = claimed(await right(journal.claim(input)))
    const sent = attempt()
    await right(journal.markSubmitted(refOf(first), sent))
    const again = await right(journal.claim({ ...input, owner: otherFacilitator, signature: randomHex(65) }))
    expect(again._tag).to.equal('Conflict')
    if (again._tag !== 'Conflict') return
    expect(again.existing).to.deep.include({ id: first.id, generation: 1, state: 'submitted', owner: input.owner })
    expect(again.existing.txHash).to.equal(sent.txHash)
    expect(again.existing.attempts).to.deep.equal([sent])
    expect(again.existing.signature).to.equal(input.signature)
  })

  it('lets exactly one of 20 concurrent claims of one authorization win; the others see its row', async () => {
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
    const count = await db.knex('settlements').where({ nonce: input.nonce }).count<Array<{ count: string }>>('* as count')
    expect(count[0]?.count).to.equal('1')
  })

  it('claims a released row again: generation + 1, new owner, fields reset, old attempts hidden', async () => {
    const input = newSettlement({ idempotencyKey: 'old-key', requestHash: 'old-hash' })
    const first = claimed(await right(journal.claim(input)))
    const old = attempt()
    await right(journal.markSubmitted(refOf(first), old))
    await right(journal.markReleased(refOf(first), 'submitted', 'nonce consumed'))
    const second = claimed(
      await right(journal.claim({ ...input, owner: otherFacilitator, idempotencyKey: 'new-key', requestHash: 'new-hash' })),
    )
    expect(second).to.deep.include({
      id: first.id,
      generation: 2,
      state: 'claimed',
      owner: otherFacilitator,
      idempotencyKey: 'new-key',
      requestHash: 'new-hash',
    })
    expect(second.attempts).to.deep.equal([])
    expect(second.txHash).to.equal(undefined)
    expect(second.error).to.equal(undefined)
    // The old claimant's transaction still leads to the row, for audit.
    const byOldHash = await right(journal.findByTxHash(old.txHash))
    expect(O.isSome(byOldHash) && byOldHash.value.generation).to.equal(2)
  })

  it('lets one of 10 concurrent claims of a released row win', async () => {
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

  it('answers none for a missing row by key, tx hash and idempotency key', async () => {
    expect(await right(journal.findByKey(newSettlement()))).to.deep.equal(O.none)
    expect(await right(journal.findByTxHash(randomHex(32)))).to.deep.equal(O.none)
    expect(await right(journal.findByIdempotencyKey('never-used'))).to.deep.equal(O.none)
  })

  it('finds a row by key, by any attempt hash and by idempotency key (newest claim first)', async () => {
    const input = newSettlement({ idempotencyKey: 'lookup-key' })
    const settlement = claimed(await right(journal.claim(input)))
    const first = attempt()
    const replacement = attempt({ maxFeePerGas: first.maxFeePerGas * 2n })
    await right(journal.markSubmitted(refOf(settlement), first))
    await right(journal.addAttempt(refOf(settlement), replacement))
    for (const found of [
      await right(journal.findByKey(input)),
      await right(journal.findByTxHash(first.txHash)),
      await right(journal.findByTxHash(replacement.txHash)),
      await right(journal.findByIdempotencyKey('lookup-key')),
    ]) {
      expect(O.isSome(found) && found.value.id).to.equal(settlement.id)
      expect(O.isSome(found) && found.value.attempts).to.deep.equal([first, replacement])
    }
    const later = claimed(await right(journal.claim(newSettlement({ idempotencyKey: 'lookup-key' }))))
    const newest = await right(journal.findByIdempotencyKey('lookup-key'))
    expect(O.isSome(newest) && newest.value.id).to.equal(later.id)
  })

  it('stores addresses and hashes lower-case and finds them whatever the case', async () => {
    const payer = randomAddress()
    const input = newSettlement({ payer: payer.toUpperCase().replace('0X', '0x') as typeof payer })
    const settlement = claimed(await right(journal.claim(input)))
    expect(settlement.payer).to.equal(payer)
    const found = await right(journal.findByKey({ ...input, payer }))
    expect(O.isSome(found)).to.equal(true)
  })

  it('lists unfinished rows changed before a time, oldest first, up to a limit', async () => {
    const a = claimed(await right(journal.claim(newSettlement())))
    const b = claimed(await right(journal.claim(newSettlement())))
    await right(journal.markSubmitted(refOf(b), attempt()))
    const c = claimed(await right(journal.claim(newSettlement())))
    await right(journal.markReleased(refOf(c), 'claimed', 'gone'))
    await db.knex.raw(`update settlements set updated_at = now() - interval '1 hour' where id in (?, ?, ?)`, [a.id, b.id, c.id])
    await db.knex.raw(`update settlements set updated_at = updated_at - interval '1 minute' where id = ?`, [b.id])
    const unfinished = await right(journal.findUnfinished(new Date(Date.now() - 30 * 60_000), 100))
    expect(unfinished.map((s) => s.id)).to.deep.equal([b.id, a.id])
    expect(unfinished[0]?.attempts).to.have.length(1)
    expect(await right(journal.findUnfinished(new Date(Date.now() - 30 * 60_000), 1))).to.have.length(1)
    expect(await right(journal.findUnfinished(new Date(Date.now() - 2 * 3_600_000), 100))).to.deep.equal([])
  })
})
