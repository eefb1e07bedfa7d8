import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { Address, EvmAddress, NewSettlement, Settlement } from '@x402-facilitator/domain'
import { authorizationOf, evmRow } from '../../src/evm/model/evm-row.js'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import {
  UINT256_MAX,
  attempt,
  claimed,
  keyOf,
  newPermit2Settlement,
  newSettlement,
  otherFacilitator,
  refOf,
  right,
  uniqueAddress,
  uniqueHex,
} from './journal-samples.js'

const otherToken: Address = '0x00000000000000000000000000000000000000a2'
const UPTO_PROXY: EvmAddress = '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002'

/** Permit2 and `upto` claims (docs/ARCHITECTURE.md §5, "Nonce spaces"): keyed by nonce space, waived rows, terms. */
export const permit2ClaimContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())
  const conflictOf = async (input: NewSettlement): Promise<Settlement> => {
    const result = await right(journal().claim(input))
    if (result._tag !== 'Conflict') throw new Error(`expected Conflict, got ${result._tag}`)
    return result.existing
  }
  /** Another Permit2 payment of `row`'s payer carrying the same sponsored permit, under a Permit2 nonce of its own. */
  const sponsored = (payer: Address, permitNonce: bigint, overrides: Partial<NewSettlement> = {}) =>
    newPermit2Settlement({
      payer,
      permit2: {
        scheme: 'exact',
        permitted: 1_000_000n,
        spender: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
        sponsoredPermit: { value: 1_000_000n, nonce: permitNonce, deadline: 4_102_444_800n, signature: uniqueHex(65) },
      },
      ...overrides,
    })

  describe('Permit2 claims', () => {
    it("round-trips a Permit2 row's terms exactly; its authorization is rebuilt from the row", async () => {
      const facilitatorKey = uniqueAddress()
      const input = newPermit2Settlement({
        value: 7n,
        permit2: {
          scheme: 'upto',
          permitted: UINT256_MAX,
          spender: UPTO_PROXY,
          facilitator: facilitatorKey,
          sponsoredPermit: {
            value: UINT256_MAX,
            nonce: UINT256_MAX - 1n,
            deadline: UINT256_MAX,
            signature: uniqueHex(65),
          },
        },
      })
      const settlement = claimed(await right(journal().claim(input)))
      expect(settlement.permit2).to.deep.equal(input.permit2)
      expect(await steps().load(input)).to.deep.equal(settlement)
      expect(authorizationOf(evmRow(settlement))).to.deep.equal({
        from: input.payer,
        to: input.payee,
        value: 7n,
        validAfter: input.validAfter,
        validBefore: input.validBefore,
        nonce: input.nonce,
        permit2: input.permit2,
      })
      // An EIP-3009 row has none.
      expect('permit2' in claimed(await right(journal().claim(newSettlement())))).to.equal(false)
    })

    it('one Permit2 nonce on two tokens of one network is one row: the second claim meets the first', async () => {
      const first = claimed(await right(journal().claim(newPermit2Settlement())))
      const onOtherToken = { ...newPermit2Settlement(), ...keyOf(first), asset: otherToken, owner: otherFacilitator }
      expect(await conflictOf(onOtherToken)).to.deep.equal(await steps().load(first))
      expect(await right(journal().findByKey(onOtherToken))).to.deep.equal(O.none)
      // The same nonce of the same payer as an EIP-3009 authorization of the other token is another nonce space.
      expect((await right(journal().claim({ ...newSettlement(), ...keyOf(onOtherToken) })))._tag).to.equal('Claimed')
    })

    it('a Permit2 row released is claimed again from another token: same row, generation + 1, that token', async () => {
      const first = claimed(await right(journal().claim(newPermit2Settlement())))
      await right(journal().markReleased(refOf(first), 'claimed', 'not broadcast'))
      const onOtherToken = { ...newPermit2Settlement(), ...keyOf(first), asset: otherToken }
      const again = claimed(await right(journal().claim(onOtherToken)))
      expect(again).to.deep.include({ id: first.id, generation: 2, state: 'claimed', asset: otherToken })
      expect(await steps().load(onOtherToken)).to.deep.equal(again)
    })

    it('a released upto row whose attempt may still be mined is claimed again only for the same charge, or once judged', async () => {
      const upto = (value: bigint, waived = false): NewSettlement =>
        newPermit2Settlement({
          value,
          permit2: { scheme: 'upto', permitted: 5_000_000n, spender: UPTO_PROXY, facilitator: otherFacilitator },
          ...(waived ? { waived: true as const } : {}),
        })
      const first = claimed(await right(journal().claim(upto(1_000_000n))))
      const key = keyOf(first)
      expect(await right(journal().markSubmitted(refOf(first), attempt()))).to.equal('applied')
      expect(await right(journal().markReleased(refOf(first), 'submitted', 'the node refused it'))).to.equal('applied')
      // Another amount, or nothing: the attempt mined after all would charge what no row says.
      for (const other of [upto(2_000_000n), upto(0n, true)])
        expect(await conflictOf({ ...other, ...key })).to.deep.include({
          id: first.id,
          generation: 1,
          state: 'released',
        })
      const same = claimed(await right(journal().claim({ ...upto(1_000_000n), ...key })))
      expect(same).to.deep.include({ id: first.id, generation: 2, state: 'claimed' })
      // Released again before signing: the first claim's attempt is still out there until the row is judged.
      expect(await right(journal().markReleased(refOf(same), 'claimed', 'not broadcast'))).to.equal('applied')
      await conflictOf({ ...upto(2_000_000n), ...key })
      expect(await right(journal().endReleasedWatch(refOf(same)))).to.equal('applied')
      const judged = claimed(await right(journal().claim({ ...upto(2_000_000n), ...key })))
      expect(judged).to.deep.include({ id: first.id, generation: 3, value: 2_000_000n })
    })

    it('a claim meeting a row of its key in the other nonce space conflicts with that row, either way', async () => {
      const eip3009 = claimed(await right(journal().claim(newSettlement())))
      expect(await conflictOf({ ...newPermit2Settlement(), ...keyOf(eip3009) })).to.deep.equal(eip3009)
      const permit2 = claimed(await right(journal().claim(newPermit2Settlement())))
      expect(await conflictOf({ ...newSettlement(), ...keyOf(permit2) })).to.deep.equal(permit2)
      // Released, it is still not the other space's to take.
      await right(journal().markReleased(refOf(permit2), 'claimed', 'not broadcast'))
      expect(await conflictOf({ ...newSettlement(), ...keyOf(permit2) })).to.deep.include({ id: permit2.id })
    })

    it('a sponsored permit is held by one row: another Permit2 nonce carrying it conflicts until release', async () => {
      const payer = uniqueAddress()
      const holder = claimed(await right(journal().claim(sponsored(payer, 3n))))
      expect(await conflictOf(sponsored(payer, 3n))).to.deep.equal(holder)
      // Another token nonce, another token or another owner: another permit.
      for (const other of [
        sponsored(payer, 4n),
        sponsored(payer, 3n, { asset: otherToken }),
        sponsored(uniqueAddress(), 3n),
      ])
        expect((await right(journal().claim(other)))._tag).to.equal('Claimed')
      await right(journal().markReleased(refOf(holder), 'claimed', 'not broadcast'))
      expect((await right(journal().claim(sponsored(payer, 3n))))._tag).to.equal('Claimed')
    })
  })

  describe('waived claims', () => {
    it('claims a waived row in its end state: never unfinished, never followed, a second claim conflicts', async () => {
      const input = newPermit2Settlement({ waived: true, value: 0n })
      const waived = claimed(await right(journal().claim(input)))
      expect(waived).to.deep.include({ state: 'waived', generation: 1, attempts: [], value: 0n })
      expect(await steps().load(input)).to.deep.equal(waived)
      const future = new Date(Date.now() + 3_600_000)
      expect(await right(journal().findUnfinished(future, 10))).to.deep.equal([])
      expect(await right(journal().ownersWithOpenRows())).to.deep.equal([])
      expect(await right(journal().markSubmitted(refOf(waived), attempt()))).to.equal('stale')
      expect(await right(journal().markReleased(refOf(waived), 'claimed', 'never'))).to.equal('stale')
      expect(await right(journal().markReorged(refOf(waived)))).to.equal('stale')
      expect(await right(journal().blocksToWatch(waived.owner, 0n, 10))).to.deep.equal([])
      for (const again of [
        { ...input, waived: undefined, value: 5n },
        { ...input, owner: otherFacilitator },
      ]) {
        const { waived: _waived, ...claim } = again
        expect(await conflictOf(claim)).to.deep.equal(waived)
      }
      expect(await steps().load(input)).to.deep.equal(waived)
    })

    it('a waived row holds no sponsored permit: nothing was sent, the payer may sign that nonce again', async () => {
      const payer = uniqueAddress()
      claimed(await right(journal().claim(sponsored(payer, 9n, { waived: true, value: 0n }))))
      expect((await right(journal().claim(sponsored(payer, 9n))))._tag).to.equal('Claimed')
    })
  })
}
