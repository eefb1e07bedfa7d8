import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type {
  ClaimRef,
  JournalUnavailable,
  SettlementJournal,
  SettledElsewhereTransition,
  SettlementState,
  Transition,
} from '@x402-facilitator/domain'
import { type JournalUnderTest, type RowInState, stepsOn } from './journal-under-test.js'
import { attempt, receipt, right, uniqueHex } from './journal-samples.js'

interface Guarded {
  readonly name: string
  /** The states it applies from; from any other it is `stale`. */
  readonly from: ReadonlyArray<SettlementState>
  /** The call, as a caller holding `ref` for `row` would make it (a receipt or attempt of the row's claim). */
  readonly call: (
    journal: SettlementJournal,
    ref: ClaimRef,
    row: RowInState,
  ) => TE.TaskEither<JournalUnavailable, Transition | SettledElsewhereTransition>
}

const transitions: ReadonlyArray<Guarded> = [
  { name: 'markSubmitted', from: ['claimed'], call: (j, ref) => j.markSubmitted(ref, attempt()) },
  { name: 'addAttempt', from: ['submitted'], call: (j, ref) => j.addAttempt(ref, attempt()) },
  {
    name: 'markMined',
    from: ['submitted'],
    call: (j, ref, row) => j.markMined(ref, receipt(row.first?.txHash ?? uniqueHex(32))),
  },
  {
    name: "markReleased from 'claimed'",
    from: ['claimed'],
    call: (j, ref) => j.markReleased(ref, 'claimed', 'released'),
  },
  {
    name: "markReleased from 'submitted'",
    from: ['submitted'],
    call: (j, ref) => j.markReleased(ref, 'submitted', 'released'),
  },
  {
    name: 'markSettledElsewhere',
    from: ['submitted'],
    call: (j, ref) => j.markSettledElsewhere(ref, 'used elsewhere'),
  },
  { name: 'markCancelled', from: ['submitted'], call: (j, ref) => j.markCancelled(ref, 'cancelled by the payer') },
  { name: 'markReorged', from: ['confirmed', 'reverted', 'final', 'cancelled'], call: (j, ref) => j.markReorged(ref) },
  {
    name: 'markMinedAgain',
    from: ['confirmed', 'final', 'reverted', 'cancelled'],
    call: (j, ref, row) =>
      j.markMinedAgain(
        ref,
        receipt(row.first?.txHash ?? uniqueHex(32), { blockNumber: 12_345_700n, blockHash: uniqueHex(32) }),
      ),
  },
]

const states: ReadonlyArray<SettlementState> = [
  'claimed',
  'submitted',
  'confirmed',
  'final',
  'reverted',
  'released',
  'cancelled',
  'unsettleable',
]

/** Every transition's allowed from-states; anything else is `stale` and writes nothing (docs/ARCHITECTURE.md §5). */
export const transitionGuardsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  const expectStale = async (row: RowInState, call: () => ReturnType<Guarded['call']>) => {
    const before = await steps().load(row.key)
    expect(await right(call())).to.equal('stale')
    expect(await steps().load(row.key)).to.deep.equal(before)
  }

  describe('guarded transitions', () => {
    for (const { name, from, call } of transitions) {
      it(`${name}: applies from ${from.join(' or ')} only; from another state, for another claim or row, stale`, async () => {
        for (const state of states) {
          const row = await steps().rowIn(state)
          if (from.includes(state)) expect(await right(call(journal(), row.ref, row)), state).to.equal('applied')
          else await expectStale(row, () => call(journal(), row.ref, row))
        }
        const row = await steps().rowIn(from[0]!)
        await expectStale(row, () => call(journal(), { ...row.ref, generation: row.ref.generation + 1 }, row))
        expect(await right(call(journal(), { id: '999999999', generation: 1 }, row))).to.equal('stale')
      })
    }

    it('a stale markSubmitted or addAttempt stores no attempt', async () => {
      const { ref } = await steps().submitted()
      const [late, other] = [attempt(), attempt({ accountNonce: 8n })]
      expect(await right(journal().markSubmitted(ref, late))).to.equal('stale')
      // A replacement must share the account nonce of the claim's attempts.
      expect(await right(journal().addAttempt(ref, other))).to.equal('stale')
      for (const hash of [late.txHash, other.txHash])
        expect(await right(journal().findByTxHash(hash))).to.deep.equal(O.none)
    })

    it("refuses the old claimant's receipt once the row was released and claimed again", async () => {
      const { key, ref, first } = await steps().submitted()
      await right(journal().markReleased(ref, 'submitted', 'account nonce consumed elsewhere'))
      const again = await steps().claimNew({ ...key })
      const second = attempt({ accountNonce: 9n })
      await right(journal().markSubmitted({ ...ref, generation: 2 }, second))
      // The old claim's ref, and even the new ref with the old claim's transaction: both refused.
      expect(again.generation).to.equal(2)
      expect(await right(journal().markMined(ref, receipt(first.txHash)))).to.equal('stale')
      expect(await right(journal().markMined({ ...ref, generation: 2 }, receipt(first.txHash)))).to.equal('stale')
      expect(await steps().load(key)).to.deep.include({ state: 'submitted', generation: 2, txHash: second.txHash })
      expect(await right(journal().markMined({ ...ref, generation: 2 }, receipt(second.txHash)))).to.equal('applied')
    })
  })
}
