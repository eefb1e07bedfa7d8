import { expect } from 'chai'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { attempt, refOf, right } from './journal-samples.js'

/** Long before any row the journal writes now: rows are aged by setting `updatedAt` to this or a little later. */
const T0 = new Date('2001-02-03T04:05:06.000Z')
const minutesAfterT0 = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)

/** findUnfinished, the recovery scan (docs/ARCHITECTURE.md §5.5). */
export const findUnfinishedContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())
  const ids = async (updatedBefore: Date, limit: number) =>
    (await right(journal().findUnfinished(updatedBefore, limit))).map((row) => row.id)

  describe('findUnfinished', () => {
    it('lists claimed and submitted rows changed before a time, oldest change first, then by id, up to a limit', async () => {
      const [claimed, submitted, sameTime] = [
        await steps().rowIn('claimed'),
        await steps().rowIn('submitted'),
        await steps().rowIn('claimed'),
      ]
      const finished = await Promise.all(
        (['confirmed', 'reverted', 'released'] as const).map((state) => steps().rowIn(state)),
      )
      await steps().rowIn('claimed') // changed just now
      for (const row of finished) await current().setUpdatedAt(row.ref.id, T0)
      await current().setUpdatedAt(submitted.ref.id, minutesAfterT0(1))
      await current().setUpdatedAt(claimed.ref.id, minutesAfterT0(2))
      await current().setUpdatedAt(sameTime.ref.id, minutesAfterT0(2))

      expect(await ids(minutesAfterT0(30), 100)).to.deep.equal([submitted.ref.id, claimed.ref.id, sameTime.ref.id])
      expect(await ids(minutesAfterT0(30), 2)).to.deep.equal([submitted.ref.id, claimed.ref.id])
      // Strictly before.
      expect(await ids(minutesAfterT0(2), 100)).to.deep.equal([submitted.ref.id])
      expect(await ids(T0, 100)).to.deep.equal([])
      const [row] = await right(journal().findUnfinished(minutesAfterT0(30), 1))
      expect(row).to.deep.equal(await steps().load(submitted.key))
    })

    it("pages: after a cursor (a row's change time and id), the rows that follow it, so a scan reads every row once", async () => {
      const rows = [
        await steps().rowIn('claimed'),
        await steps().rowIn('submitted'),
        await steps().rowIn('claimed'),
        await steps().rowIn('submitted'),
      ]
      await current().setUpdatedAt(rows[0]!.ref.id, minutesAfterT0(1))
      await current().setUpdatedAt(rows[1]!.ref.id, minutesAfterT0(2))
      await current().setUpdatedAt(rows[2]!.ref.id, minutesAfterT0(2))
      await current().setUpdatedAt(rows[3]!.ref.id, minutesAfterT0(3))
      const seen: string[] = []
      let after: { updatedAt: Date; id: string } | undefined
      for (;;) {
        const page = await right(journal().findUnfinished(minutesAfterT0(30), 2, after))
        seen.push(...page.map((row) => row.id))
        const last = page[page.length - 1]
        if (last === undefined || page.length < 2) break
        after = { updatedAt: last.updatedAt, id: last.id }
      }
      expect(seen).to.deep.equal(rows.map((row) => row.ref.id))
    })

    it("a transition stamps the row as changed now: it leaves an old scan's window", async () => {
      const settlement = await steps().claimNew()
      await current().setUpdatedAt(settlement.id, T0)
      expect(await ids(minutesAfterT0(30), 100)).to.deep.equal([settlement.id])
      await right(journal().markSubmitted(refOf(settlement), attempt()))
      expect(await ids(minutesAfterT0(30), 100)).to.deep.equal([])
    })
  })
}
