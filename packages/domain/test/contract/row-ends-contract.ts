import { expect } from 'chai'
import type { Address } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, keyOf, receipt, refOf, right, uniqueAddress, uniqueHex } from './journal-samples.js'

/**
 * Row ends without a transfer and the rows followed through reorgs (docs/ARCHITECTURE.md §5.5, §5.6): `cancelled`,
 * `unsettleable` after counted refusals, and `reverted`, `cancelled` and batch-released rows watched until `endWatch`.
 */
export const rowEndsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  /** A submitted row of `owner` whose attempt is at `accountNonce`. */
  const submittedOf = async (owner: Address, accountNonce = 7n) => {
    const settlement = await steps().claimNew({ owner })
    const first = attempt({ accountNonce })
    expect(await right(journal().markSubmitted(refOf(settlement), first))).to.equal('applied')
    return { key: settlement, ref: refOf(settlement), first }
  }
  const blockAt = (blockNumber: bigint) => ({ blockNumber, blockHash: uniqueHex(32) })

  describe('row ends and watched reverts', () => {
    it('markCancelled names the cancelling transaction and its block, keeps the note; the row is watched, its nonce in flight', async () => {
      const owner = uniqueAddress()
      const row = await submittedOf(owner, 21n)
      const cancel = { txHash: uniqueHex(32), ...blockAt(700n) }
      expect(await right(journal().markCancelled(row.ref, 'cancelled by the payer', cancel))).to.equal('applied')
      expect(await steps().load(row.key)).to.deep.include({
        state: 'cancelled',
        txHash: cancel.txHash,
        blockNumber: 700n,
        blockHash: cancel.blockHash,
        error: 'cancelled by the payer',
      })
      expect(await right(journal().blocksToWatch(owner, 0n, 10))).to.deep.equal([
        { blockNumber: 700n, blockHash: cancel.blockHash },
      ])
      expect(await right(journal().accountNoncesInFlight(owner))).to.deep.equal([21n])
    })

    it('a reverted row is watched until endWatch: its block, findInBlock, its nonce; then none of them', async () => {
      const owner = uniqueAddress()
      const row = await submittedOf(owner, 30n)
      const block = blockAt(800n)
      expect(
        await right(journal().markMined(row.ref, receipt(row.first.txHash, { ...block, succeeded: false }))),
      ).to.equal('applied')
      expect(await right(journal().blocksToWatch(owner, 900n, 10))).to.deep.equal([block])
      expect((await right(journal().findInBlock(owner, block))).map((r) => r.id)).to.deep.equal([row.ref.id])
      expect(await right(journal().accountNoncesInFlight(owner))).to.deep.equal([30n])
      expect(await right(journal().ownersWithOpenRows())).to.deep.include({ owner, rows: 1 })

      expect(await right(journal().endWatch(owner, 800n))).to.deep.equal([])
      expect(await right(journal().endWatch(owner, 801n))).to.deep.equal([row.ref.id])
      expect((await steps().load(row.key)).watchEndedAt).to.be.instanceOf(Date)
      expect(await right(journal().blocksToWatch(owner, 0n, 10))).to.deep.equal([])
      expect(await right(journal().findInBlock(owner, block))).to.deep.equal([])
      expect(await right(journal().accountNoncesInFlight(owner))).to.deep.equal([])
      expect((await right(journal().ownersWithOpenRows())).find((o) => o.owner === owner)).to.equal(undefined)
    })

    it('a reverted row re-mined successfully: confirmed at the new block, its error gone; reorged, back to submitted without reorgedAt', async () => {
      const row = await submittedOf(uniqueAddress())
      expect(
        await right(
          journal().markMined(
            row.ref,
            receipt(row.first.txHash, { ...blockAt(810n), succeeded: false, revertReason: 'balance' }),
          ),
        ),
      ).to.equal('applied')
      const again = blockAt(812n)
      expect(
        await right(journal().markMinedAgain(row.ref, receipt(row.first.txHash, { ...again, gasUsed: 61_000n }))),
      ).to.equal('applied')
      const paid = await steps().load(row.key)
      expect(paid).to.deep.include({
        state: 'confirmed',
        txHash: row.first.txHash,
        blockNumber: 812n,
        blockHash: again.blockHash,
        gasUsed: 61_000n,
      })
      expect(paid.error).to.equal(undefined)

      const other = await submittedOf(uniqueAddress())
      expect(
        await right(
          journal().markMined(other.ref, receipt(other.first.txHash, { ...blockAt(820n), succeeded: false })),
        ),
      ).to.equal('applied')
      expect(await right(journal().markReorged(other.ref))).to.equal('applied')
      const back = await steps().load(other.key)
      expect(back).to.deep.include({ state: 'submitted', txHash: other.first.txHash })
      expect(back.reorgedAt).to.equal(undefined)
    })

    it('a release that records the batch which reverted whole is watched and may be sent back; claimed again, it is not', async () => {
      const owner = uniqueAddress()
      const row = await submittedOf(owner, 40n)
      const batch = { txHash: row.first.txHash, ...blockAt(900n) }
      expect(await right(journal().markReleased(row.ref, 'submitted', 'the batch reverted whole', batch))).to.equal(
        'applied',
      )
      expect(await steps().load(row.key)).to.deep.include({
        state: 'released',
        blockNumber: 900n,
        blockHash: batch.blockHash,
        error: 'the batch reverted whole',
      })
      expect(await right(journal().blocksToWatch(owner, 0n, 10))).to.deep.equal([
        { blockNumber: 900n, blockHash: batch.blockHash },
      ])
      expect(await right(journal().accountNoncesInFlight(owner))).to.deep.equal([40n])
      expect(await right(journal().markReorged(row.ref))).to.equal('applied')
      expect((await steps().load(row.key)).state).to.equal('submitted')

      const plain = await submittedOf(owner, 41n)
      expect(await right(journal().markBatchReleased([plain.ref], 'submitted', 'refused by the node'))).to.deep.equal([
        plain.ref.id,
      ])
      // Released with nothing mined: nothing to watch, not sent back.
      expect(await right(journal().markReorged(plain.ref))).to.equal('stale')
      const mined = await submittedOf(owner, 42n)
      const reverted = { txHash: mined.first.txHash, ...blockAt(901n) }
      expect(
        await right(journal().markBatchReleased([mined.ref], 'submitted', 'the batch reverted whole', reverted)),
      ).to.deep.equal([mined.ref.id])
      const claimedAgain = await steps().claimNew({ ...keyOf(mined.key), owner })
      expect(claimedAgain.generation).to.equal(2)
      expect(await right(journal().blocksToWatch(owner, 0n, 10))).to.deep.equal([])
    })

    it('markRefused counts the refusals of a reorged row and keeps the reason; markUnsettleable ends it; neither for a row not reorged', async () => {
      const notReorged = await submittedOf(uniqueAddress())
      expect(await right(journal().markRefused(notReorged.ref, 'expired'))).to.equal('stale')
      expect(await right(journal().markUnsettleable(notReorged.ref, 'expired'))).to.equal('stale')

      const row = await submittedOf(uniqueAddress())
      expect(await right(journal().markMined(row.ref, receipt(row.first.txHash, blockAt(950n))))).to.equal('applied')
      expect(await right(journal().markReorged(row.ref))).to.equal('applied')
      expect(await right(journal().markRefused(row.ref, 'the payer is blacklisted'))).to.equal('applied')
      const once = await steps().load(row.key)
      expect(once).to.deep.include({ state: 'submitted', refusals: 1, error: 'the payer is blacklisted' })
      expect(once.firstRefusedAt).to.be.instanceOf(Date)
      expect(await right(journal().markRefused(row.ref, 'authorization expired'))).to.equal('applied')
      const twice = await steps().load(row.key)
      expect(twice).to.deep.include({
        refusals: 2,
        error: 'authorization expired',
        firstRefusedAt: once.firstRefusedAt,
      })
      expect(await right(journal().markUnsettleable(row.ref, 'authorization expired (refused 3 times)'))).to.equal(
        'applied',
      )
      expect(await steps().load(row.key)).to.deep.include({
        state: 'unsettleable',
        error: 'authorization expired (refused 3 times)',
      })
      expect(await right(journal().findUnfinished(new Date('2100-01-01'), 1000))).to.satisfy(
        (rows: ReadonlyArray<{ id: string }>) => !rows.some((r) => r.id === row.ref.id),
      )
    })

    it("ownersWithOpenRows counts each owner's rows to follow, final ones only from the height given", async () => {
      const owner = uniqueAddress()
      await submittedOf(owner)
      await steps().claimNew({ owner })
      const final = await submittedOf(owner)
      const block = blockAt(1_000n)
      await right(journal().markMined(final.ref, receipt(final.first.txHash, block)))
      expect(await right(journal().markFinal(owner, [block]))).to.deep.equal([final.ref.id])
      const released = await steps().claimNew({ owner })
      await right(journal().markReleased(refOf(released), 'claimed', 'abandoned'))
      const rowsOf = async (finalFrom?: bigint) =>
        (await right(journal().ownersWithOpenRows(finalFrom))).find((o) => o.owner === owner)?.rows
      expect(await rowsOf()).to.equal(2)
      expect(await rowsOf(1_000n)).to.equal(3)
      expect(await rowsOf(1_001n)).to.equal(2)
    })
  })
}
