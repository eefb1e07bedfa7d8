import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type {
  Attempt,
  ClaimRef,
  NewSettlement,
  Settlement,
  SettlementJournal,
  SettlementKey,
  SettlementState,
} from '@x402-facilitator/domain'
import {
  attempt,
  claimed,
  facilitator,
  keyOf,
  newSettlement,
  receipt,
  refOf,
  right,
  uniqueHex,
} from './journal-samples.js'

/** An empty journal for one test, and what the contract needs besides the port. */
export interface JournalUnderTest {
  readonly journal: SettlementJournal
  /** Sets a row's `updatedAt`, as if it had last changed then (`findUnfinished` selects by it). */
  readonly setUpdatedAt: (id: string, at: Date) => Promise<void>
  /** The same journal as a Solana network's (a scoped journal is one chain's) [`journal`]. */
  readonly svmJournal?: SettlementJournal
}

/** A row the test brought to a state: its key, its claim and the first attempt of that claim, if any. */
export interface RowInState {
  readonly key: SettlementKey
  readonly ref: ClaimRef
  readonly first?: Attempt
}

/** The journal's answers through the port only, to set rows up and read them back. */
export const stepsOn = (journal: SettlementJournal) => {
  const load = async (key: SettlementKey): Promise<Settlement> => {
    const found = await right(journal.findByKey(key))
    if (O.isNone(found)) throw new Error('row vanished')
    return found.value
  }

  const claimNew = async (overrides: Partial<NewSettlement> = {}): Promise<Settlement> =>
    claimed(await right(journal.claim(newSettlement(overrides))))

  const submitted = async (): Promise<Required<RowInState>> => {
    const settlement = await claimNew()
    const first = attempt()
    expect(await right(journal.markSubmitted(refOf(settlement), first))).to.equal('applied')
    return { key: keyOf(settlement), ref: refOf(settlement), first }
  }

  const rowIn = async (state: SettlementState): Promise<RowInState> => {
    if (state === 'claimed' || state === 'released') {
      const settlement = await claimNew()
      if (state === 'released')
        expect(await right(journal.markReleased(refOf(settlement), 'claimed', 'test'))).to.equal('applied')
      return { key: keyOf(settlement), ref: refOf(settlement) }
    }
    const row = await submitted()
    if (state === 'cancelled') {
      expect(
        await right(
          journal.markCancelled(row.ref, 'cancelled by the payer', {
            txHash: uniqueHex(32),
            blockNumber: 12_345_677n,
            blockHash: uniqueHex(32),
          }),
        ),
      ).to.equal('applied')
      return row
    }
    if (state === 'unsettleable') {
      // Only a row a reorg sent back can end so.
      expect(await right(journal.markMined(row.ref, receipt(row.first.txHash, { blockHash: uniqueHex(32) })))).to.equal(
        'applied',
      )
      expect(await right(journal.markReorged(row.ref))).to.equal('applied')
      expect(await right(journal.markUnsettleable(row.ref, 'authorization expired'))).to.equal('applied')
      return row
    }
    if (state !== 'submitted') {
      // A block of its own: marking it final moves no other row.
      const mined = receipt(row.first.txHash, {
        succeeded: state !== 'reverted',
        ...(state === 'final' ? { blockHash: uniqueHex(32) } : {}),
      })
      expect(await right(journal.markMined(row.ref, mined))).to.equal('applied')
      if (state === 'final') expect(await right(journal.markFinal(facilitator, [mined]))).to.include(row.ref.id)
    }
    return row
  }

  return { load, claimNew, submitted, rowIn }
}
