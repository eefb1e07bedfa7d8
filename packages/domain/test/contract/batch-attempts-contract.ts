import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, receipt, refOf, right } from './journal-samples.js'

/**
 * A settler batch (docs/ARCHITECTURE.md §5.7): one transaction recorded on all its rows or on none, each row at its
 * own item index; a replacement recorded on every row still waiting for the batch it replaces.
 */
export const batchAttemptsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  const claimedRows = async (count: number) => Promise.all(Array.from({ length: count }, () => steps().claimNew()))

  describe('batch attempts', () => {
    it('markBatchSubmitted stores the attempt on every row, each at its item index, raw bytes included', async () => {
      const rows = await claimedRows(3)
      const batch = attempt()
      expect(await right(journal().markBatchSubmitted(rows.map(refOf), batch))).to.equal('applied')
      for (const [index, row] of rows.entries()) {
        expect(await steps().load(row)).to.deep.include({
          state: 'submitted',
          txHash: batch.txHash,
          attempts: [{ ...batch, batchIndex: index }],
        })
      }
    })

    it('a row not claimed any more: stale, and no row of the batch is written', async () => {
      const rows = await claimedRows(3)
      await right(journal().markReleased(refOf(rows[1]!), 'claimed', 'gave up'))
      const before = await Promise.all(rows.map((row) => steps().load(row)))
      expect(await right(journal().markBatchSubmitted(rows.map(refOf), attempt()))).to.equal('stale')
      expect(await Promise.all(rows.map((row) => steps().load(row)))).to.deep.equal(before)
    })

    it('a hash another row holds: stale, nothing written; a lone attempt may not take a batch hash either', async () => {
      const taken = await steps().submitted()
      const rows = await claimedRows(2)
      expect(
        await right(journal().markBatchSubmitted(rows.map(refOf), attempt({ txHash: taken.first.txHash }))),
      ).to.equal('stale')
      expect((await steps().load(rows[0]!)).state).to.equal('claimed')
      const batch = attempt()
      expect(await right(journal().markBatchSubmitted(rows.map(refOf), batch))).to.equal('applied')
      const lone = await steps().claimNew()
      expect(await right(journal().markSubmitted(refOf(lone), attempt({ txHash: batch.txHash })))).to.equal('stale')
    })

    it("each row's receipt is its own: one item confirmed, another reverted, in the same transaction", async () => {
      const rows = await claimedRows(2)
      const batch = attempt()
      await right(journal().markBatchSubmitted(rows.map(refOf), batch))
      expect(await right(journal().markMined(refOf(rows[0]!), receipt(batch.txHash, { gasUsed: 40_000n })))).to.equal(
        'applied',
      )
      expect(
        await right(
          journal().markMined(
            refOf(rows[1]!),
            receipt(batch.txHash, { succeeded: false, revertReason: 'FiatTokenV2: authorization is used or canceled' }),
          ),
        ),
      ).to.equal('applied')
      expect(await steps().load(rows[0]!)).to.deep.include({
        state: 'confirmed',
        txHash: batch.txHash,
        gasUsed: 40_000n,
      })
      expect(await steps().load(rows[1]!)).to.deep.include({
        state: 'reverted',
        error: 'FiatTokenV2: authorization is used or canceled',
      })
      expect(O.isSome(await right(journal().findByTxHash(batch.txHash)))).to.equal(true)
    })

    it('addBatchAttempt records a replacement on every row still waiting, at its index; again: the same rows, nothing more', async () => {
      const rows = await claimedRows(3)
      const batch = attempt()
      await right(journal().markBatchSubmitted(rows.map(refOf), batch))
      const replacement = attempt({ accountNonce: batch.accountNonce, maxFeePerGas: batch.maxFeePerGas * 2n })
      const ids = await right(journal().addBatchAttempt(batch.txHash, replacement))
      expect([...ids].sort()).to.deep.equal(rows.map((row) => row.id).sort())
      for (const [index, row] of rows.entries()) {
        expect(await steps().load(row)).to.deep.include({
          txHash: replacement.txHash,
          attempts: [
            { ...batch, batchIndex: index },
            { ...replacement, batchIndex: index },
          ],
        })
      }
      const before = await Promise.all(rows.map((row) => steps().load(row)))
      expect([...(await right(journal().addBatchAttempt(batch.txHash, replacement)))].sort()).to.deep.equal(
        [...ids].sort(),
      )
      expect((await Promise.all(rows.map((row) => steps().load(row)))).map((row) => row.attempts)).to.deep.equal(
        before.map((row) => row.attempts),
      )
    })

    it('addBatchAttempt skips rows that ended, at another nonce, or with no batch; none when the new hash is held elsewhere', async () => {
      const rows = await claimedRows(2)
      const batch = attempt()
      await right(journal().markBatchSubmitted(rows.map(refOf), batch))
      await right(journal().markMined(refOf(rows[0]!), receipt(batch.txHash)))
      expect(
        await right(journal().addBatchAttempt(batch.txHash, attempt({ accountNonce: batch.accountNonce + 1n }))),
      ).to.deep.equal([])
      const taken = await steps().submitted()
      expect(
        await right(
          journal().addBatchAttempt(
            batch.txHash,
            attempt({ txHash: taken.first.txHash, accountNonce: batch.accountNonce }),
          ),
        ),
      ).to.deep.equal([])
      expect(
        await right(journal().addBatchAttempt(taken.first.txHash, attempt({ accountNonce: taken.first.accountNonce }))),
      ).to.deep.equal([])
      const replacement = attempt({ accountNonce: batch.accountNonce })
      expect(await right(journal().addBatchAttempt(batch.txHash, replacement))).to.deep.equal([rows[1]!.id])
      expect((await steps().load(rows[0]!)).attempts).to.have.length(1)
    })

    it('markBatchReleased releases every row of the batch still in that state, in one statement; others are left alone', async () => {
      const rows = await claimedRows(3)
      const batch = attempt()
      await right(journal().markBatchSubmitted(rows.map(refOf), batch))
      await right(journal().markMined(refOf(rows[2]!), receipt(batch.txHash)))
      const released = await right(
        journal().markBatchReleased(rows.map(refOf), 'submitted', 'refused by the node: insufficient funds for gas'),
      )
      expect([...released].sort()).to.deep.equal([rows[0]!.id, rows[1]!.id].sort())
      for (const row of rows.slice(0, 2))
        expect(await steps().load(row)).to.deep.include({
          state: 'released',
          error: 'refused by the node: insufficient funds for gas',
        })
      expect((await steps().load(rows[2]!)).state).to.equal('confirmed')
      expect(await right(journal().markBatchReleased(rows.map(refOf), 'submitted', 'again'))).to.deep.equal([])
    })
  })
}
