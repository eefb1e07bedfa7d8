import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { ClaimRef, Settlement, SettlementJournal, TransferReceipt } from '@x402-facilitator/domain'
import { makeKnexSettlementJournal } from '../src/knex-settlement-journal.js'
import { createTestDatabase, type TestDatabase } from '../src/test-database.js'
import { attempt, newSettlement, otherFacilitator, randomHex, refOf, right } from './samples.js'

const receipt = (txHash: `0x${string}`, overrides: Partial<TransferReceipt> = {}): TransferReceipt => ({
  txHash,
  blockNumber: 12_345_678n,
  gasUsed: 85_000n,
  succeeded: true,
  ...overrides,
})

describe('KnexSettlementJournal: guarded transitions', () => {
  let db: TestDatabase
  let journal: SettlementJournal

  before(async () => {
    db = await createTestDatabase()
    journal = makeKnexSettlementJournal(db.knex)
  })
  after(() => db.drop())

  const load = async (ref: ClaimRef): Promise<Settlement> => {
    const row = await db.knex('settlements').where({ id: ref.id }).first<{ network: string; asset: `0x${string}`; payer: `0x${string}`; nonce: `0x${string}` }>()
    const found = await right(journal.findByKey(row!))
    if (O.isNone(found)) throw new Error('row vanished')
    return found.value
  }

  const claimNew = async (): Promise<Settlement> => {
    const result = await right(journal.claim(newSettlement()))
    if (result._tag !== 'Claimed') throw new Error('not claimed')
    return result.settlement
  }

  const submitted = async () => {
    const settlement = await claimNew()
    const first = attempt()
    expect(await right(journal.markSubmitted(refOf(settlement), first))).to.equal('applied')
    return { ref: refOf(settlement), first }
  }

  describe('claimed → submitted (markSubmitted)', () => {
    it('stores the attempt and the tx hash in one step', async () => {
      const { ref, first } = await submitted()
      const row = await load(ref)
      expect(row).to.deep.include({ state: 'submitted', txHash: first.txHash, generation: 1 })
      expect(row.attempts).to.deep.equal([first])
      expect(row.updatedAt.getTime()).to.be.at.least(row.createdAt.getTime())
    })

    it('is stale when the row is not claimed any more, and then writes no attempt', async () => {
      const { ref } = await submitted()
      const late = attempt()
      expect(await right(journal.markSubmitted(ref, late))).to.equal('stale')
      expect(O.isNone(await right(journal.findByTxHash(late.txHash)))).to.equal(true)
      expect((await load(ref)).attempts).to.have.length(1)
    })

    it('is stale for a wrong generation or an unknown row', async () => {
      const settlement = await claimNew()
      expect(await right(journal.markSubmitted({ ...refOf(settlement), generation: 2 }, attempt()))).to.equal('stale')
      expect(await right(journal.markSubmitted({ id: '999999999', generation: 1 }, attempt()))).to.equal('stale')
      expect((await load(refOf(settlement))).state).to.equal('claimed')
    })
  })

  describe('submitted → submitted (addAttempt)', () => {
    it('adds a replacement at the same account nonce; the latest becomes the tx hash; oldest first', async () => {
      const { ref, first } = await submitted()
      const second = attempt({ maxFeePerGas: first.maxFeePerGas * 2n, sentAt: new Date('2025-01-02T03:05:00.000Z') })
      const third = attempt({ maxFeePerGas: first.maxFeePerGas * 3n, sentAt: new Date('2025-01-02T03:06:00.000Z') })
      expect(await right(journal.addAttempt(ref, second))).to.equal('applied')
      expect(await right(journal.addAttempt(ref, third))).to.equal('applied')
      const row = await load(ref)
      expect(row.attempts).to.deep.equal([first, second, third])
      expect(row.txHash).to.equal(third.txHash)
    })

    it('refuses another account nonce, a claimed row, a finished row and a wrong generation', async () => {
      const { ref } = await submitted()
      expect(await right(journal.addAttempt(ref, attempt({ accountNonce: 8n })))).to.equal('stale')
      expect(await right(journal.addAttempt({ ...ref, generation: 2 }, attempt()))).to.equal('stale')
      const fresh = await claimNew()
      expect(await right(journal.addAttempt(refOf(fresh), attempt()))).to.equal('stale')
      const done = await submitted()
      await right(journal.markMined(done.ref, receipt(done.first.txHash)))
      expect(await right(journal.addAttempt(done.ref, attempt()))).to.equal('stale')
      expect((await load(ref)).attempts).to.have.length(1)
    })
  })

  describe('submitted → confirmed | reverted (markMined)', () => {
    it('confirms with block number and gas of a receipt for any attempt (not only the latest)', async () => {
      const { ref, first } = await submitted()
      const second = attempt()
      await right(journal.addAttempt(ref, second))
      expect(await right(journal.markMined(ref, receipt(first.txHash)))).to.equal('applied')
      const row = await load(ref)
      expect(row).to.deep.include({ state: 'confirmed', txHash: first.txHash, blockNumber: 12_345_678n, gasUsed: 85_000n })
      expect(row.error).to.equal(undefined)
    })

    it('records a revert with its reason', async () => {
      const { ref, first } = await submitted()
      const mined = receipt(first.txHash, { succeeded: false, revertReason: 'FiatTokenV2: authorization is used' })
      expect(await right(journal.markMined(ref, mined))).to.equal('applied')
      expect(await load(ref)).to.deep.include({ state: 'reverted', error: 'FiatTokenV2: authorization is used' })
    })

    it('refuses a tx hash that is not among the attempts of this claim', async () => {
      const { ref } = await submitted()
      expect(await right(journal.markMined(ref, receipt(randomHex(32))))).to.equal('stale')
      expect((await load(ref)).state).to.equal('submitted')
    })

    it('refuses a claimed row, a second receipt, and a wrong generation', async () => {
      const fresh = await claimNew()
      expect(await right(journal.markMined(refOf(fresh), receipt(randomHex(32))))).to.equal('stale')
      const { ref, first } = await submitted()
      expect(await right(journal.markMined({ ...ref, generation: 2 }, receipt(first.txHash)))).to.equal('stale')
      await right(journal.markMined(ref, receipt(first.txHash)))
      expect(await right(journal.markMined(ref, receipt(first.txHash, { succeeded: false })))).to.equal('stale')
      expect((await load(ref)).state).to.equal('confirmed')
    })

    it("refuses the old claimant's receipt after the row was released and claimed again", async () => {
      const { ref, first } = await submitted()
      await right(journal.markReleased(ref, 'submitted', 'account nonce consumed elsewhere'))
      const input = await load(ref)
      const again = await right(journal.claim({ ...input, requirements: {}, owner: otherFacilitator }))
      expect(again._tag).to.equal('Claimed')
      const second = attempt({ accountNonce: 9n })
      await right(journal.markSubmitted({ ...ref, generation: 2 }, second))
      // Old claim's ref, and even the new ref with the old claim's transaction: both refused.
      expect(await right(journal.markMined(ref, receipt(first.txHash)))).to.equal('stale')
      expect(await right(journal.markMined({ ...ref, generation: 2 }, receipt(first.txHash)))).to.equal('stale')
      expect(await right(journal.markReleased(ref, 'submitted', 'late'))).to.equal('stale')
      expect(await load(ref)).to.deep.include({ state: 'submitted', generation: 2, txHash: second.txHash })
      expect(await right(journal.markMined({ ...ref, generation: 2 }, receipt(second.txHash)))).to.equal('applied')
    })
  })

  describe('→ released (markReleased)', () => {
    it('releases a claimed row with the reason', async () => {
      const settlement = await claimNew()
      expect(await right(journal.markReleased(refOf(settlement), 'claimed', 'nothing broadcast'))).to.equal('applied')
      expect(await load(refOf(settlement))).to.deep.include({ state: 'released', error: 'nothing broadcast' })
    })

    it('releases a submitted row', async () => {
      const { ref } = await submitted()
      expect(await right(journal.markReleased(ref, 'submitted', 'nonce consumed'))).to.equal('applied')
      expect((await load(ref)).state).to.equal('released')
    })

    it('refuses the wrong expected state, a finished row, a released row and a wrong generation', async () => {
      const settlement = await claimNew()
      expect(await right(journal.markReleased(refOf(settlement), 'submitted', 'x'))).to.equal('stale')
      expect(await right(journal.markReleased({ ...refOf(settlement), generation: 5 }, 'claimed', 'x'))).to.equal('stale')
      const { ref, first } = await submitted()
      expect(await right(journal.markReleased(ref, 'claimed', 'x'))).to.equal('stale')
      await right(journal.markMined(ref, receipt(first.txHash)))
      expect(await right(journal.markReleased(ref, 'submitted', 'x'))).to.equal('stale')
      expect((await load(ref)).state).to.equal('confirmed')
      await right(journal.markReleased(refOf(settlement), 'claimed', 'first'))
      expect(await right(journal.markReleased(refOf(settlement), 'claimed', 'second'))).to.equal('stale')
      expect((await load(refOf(settlement))).error).to.equal('first')
    })
  })

  describe('submitted → confirmed elsewhere (markSettledElsewhere)', () => {
    it('confirms without naming a transaction of ours, keeping the note', async () => {
      const { ref } = await submitted()
      expect(await right(journal.markSettledElsewhere(ref, 'authorization used by 0xabc'))).to.equal('applied')
      const row = await load(ref)
      expect(row).to.deep.include({ state: 'confirmed', error: 'authorization used by 0xabc' })
      expect(row.txHash).to.equal(undefined)
      expect(row.attempts).to.have.length(1)
    })

    it('refuses a claimed, confirmed or differently claimed row', async () => {
      const fresh = await claimNew()
      expect(await right(journal.markSettledElsewhere(refOf(fresh), 'x'))).to.equal('stale')
      const { ref, first } = await submitted()
      expect(await right(journal.markSettledElsewhere({ ...ref, generation: 2 }, 'x'))).to.equal('stale')
      await right(journal.markMined(ref, receipt(first.txHash)))
      expect(await right(journal.markSettledElsewhere(ref, 'x'))).to.equal('stale')
      expect((await load(ref)).txHash).to.equal(first.txHash)
    })
  })

  describe('confirmed → submitted (markReorged)', () => {
    it('sends a confirmed row back to submitted, forgetting the receipt, then it can be mined again', async () => {
      const { ref, first } = await submitted()
      const second = attempt()
      await right(journal.addAttempt(ref, second))
      await right(journal.markMined(ref, receipt(first.txHash)))
      expect(await right(journal.markReorged(ref))).to.equal('applied')
      const row = await load(ref)
      expect(row).to.deep.include({ state: 'submitted', txHash: second.txHash })
      expect(row.blockNumber).to.equal(undefined)
      expect(row.gasUsed).to.equal(undefined)
      expect(await right(journal.markMined(ref, receipt(second.txHash, { blockNumber: 12_345_680n })))).to.equal('applied')
      expect(await load(ref)).to.deep.include({ state: 'confirmed', blockNumber: 12_345_680n })
    })

    it('also takes back a reverted receipt lost to a reorg', async () => {
      const { ref, first } = await submitted()
      await right(journal.markMined(ref, receipt(first.txHash, { succeeded: false })))
      expect(await right(journal.markReorged(ref))).to.equal('applied')
      expect(await load(ref)).to.deep.include({ state: 'submitted' })
      expect((await load(ref)).error).to.equal(undefined)
    })

    it('refuses claimed, submitted and released rows and a wrong generation', async () => {
      const fresh = await claimNew()
      expect(await right(journal.markReorged(refOf(fresh)))).to.equal('stale')
      const { ref, first } = await submitted()
      expect(await right(journal.markReorged(ref))).to.equal('stale')
      await right(journal.markMined(ref, receipt(first.txHash)))
      expect(await right(journal.markReorged({ ...ref, generation: 2 }))).to.equal('stale')
      await right(journal.markReleased(refOf(fresh), 'claimed', 'x'))
      expect(await right(journal.markReorged(refOf(fresh)))).to.equal('stale')
      expect((await load(ref)).state).to.equal('confirmed')
    })
  })

  it('never moves a finished row backwards: every transition out of confirmed other than reorg is stale', async () => {
    const { ref, first } = await submitted()
    await right(journal.markMined(ref, receipt(first.txHash)))
    const outcomes = [
      await right(journal.markSubmitted(ref, attempt())),
      await right(journal.addAttempt(ref, attempt())),
      await right(journal.markMined(ref, receipt(first.txHash, { succeeded: false }))),
      await right(journal.markReleased(ref, 'submitted', 'x')),
      await right(journal.markReleased(ref, 'claimed', 'x')),
      await right(journal.markSettledElsewhere(ref, 'x')),
    ]
    expect(outcomes).to.deep.equal(['stale', 'stale', 'stale', 'stale', 'stale', 'stale'])
    const input = await load(ref)
    const reclaim = await right(journal.claim({ ...input, requirements: {} }))
    expect(reclaim._tag).to.equal('Conflict')
    expect(await load(ref)).to.deep.include({ state: 'confirmed', generation: 1, txHash: first.txHash })
  })

  it('rejects a state outside the five at the database', async () => {
    const settlement = await claimNew()
    let failure: unknown
    await db.knex('settlements').where({ id: settlement.id }).update({ state: 'lost' }).catch((e: unknown) => (failure = e))
    expect((failure as { code?: string }).code).to.equal('23514')
  })
})
