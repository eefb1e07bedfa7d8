import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { SettlementState } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import {
  UINT256_MAX,
  attempt,
  claimed,
  keyOf,
  newSettlement,
  otherFacilitator,
  refOf,
  right,
  uniqueHex,
} from './journal-samples.js'

const upper = <T extends string>(hex: T): T => `0x${hex.slice(2).toUpperCase()}` as T

/** claim (docs/ARCHITECTURE.md §5.2) and the three look-ups. */
export const claimContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().journal
  const steps = () => stepsOn(journal())

  describe('claim', () => {
    it('claims a new authorization: generation 1, state claimed, no attempts, what it was given', async () => {
      const input = newSettlement({ idempotencyKey: 'key-1', requestHash: 'hash-1' })
      const settlement = claimed(await right(journal().claim(input)))
      const { requirements: _requirements, ...given } = input
      expect(settlement).to.deep.include({ ...given, state: 'claimed', generation: 1, attempts: [] })
      expect(settlement.id).to.be.a('string')
      for (const absent of [settlement.txHash, settlement.blockNumber, settlement.gasUsed, settlement.error])
        expect(absent).to.equal(undefined)
      expect(settlement.createdAt).to.be.instanceOf(Date)
      expect(settlement.updatedAt).to.be.instanceOf(Date)
      expect(await steps().load(input)).to.deep.equal(settlement)
    })

    it('round-trips uint256 max amounts, huge fees and the largest account nonce', async () => {
      const input = newSettlement({ value: UINT256_MAX, validAfter: UINT256_MAX, validBefore: UINT256_MAX })
      const settlement = claimed(await right(journal().claim(input)))
      expect([settlement.value, settlement.validAfter, settlement.validBefore]).to.deep.equal([
        UINT256_MAX,
        UINT256_MAX,
        UINT256_MAX,
      ])
      const big = attempt({
        maxFeePerGas: UINT256_MAX,
        maxPriorityFeePerGas: UINT256_MAX - 1n,
        accountNonce: 2n ** 64n - 1n,
      })
      expect(await right(journal().markSubmitted(refOf(settlement), big))).to.equal('applied')
      expect((await steps().load(input)).attempts).to.deep.equal([big])
    })

    for (const state of ['claimed', 'submitted', 'confirmed', 'reverted'] satisfies SettlementState[]) {
      it(`answers a claim of a ${state} authorization with Conflict and the row as it is, unchanged`, async () => {
        const row = await steps().rowIn(state)
        const before = await steps().load(row.key)
        const again = await right(journal().claim({ ...newSettlement(), ...row.key, owner: otherFacilitator }))
        expect(again).to.deep.equal({ _tag: 'Conflict', existing: before })
        expect(await steps().load(row.key)).to.deep.equal(before)
      })
    }

    it('claims a released row again: same id, generation + 1, what the new claim gives, nothing of the old claim', async () => {
      const input = newSettlement({ idempotencyKey: 'old-key', requestHash: 'old-hash' })
      const first = claimed(await right(journal().claim(input)))
      const old = attempt()
      await right(journal().markSubmitted(refOf(first), old))
      await right(journal().markReleased(refOf(first), 'submitted', 'nonce consumed'))
      const { idempotencyKey: _key, requestHash: _hash, ...withoutKeys } = input
      const reclaim = {
        ...withoutKeys,
        owner: otherFacilitator,
        value: 5n,
        signature: uniqueHex(65),
        requestHash: 'new-hash',
      }
      const second = claimed(await right(journal().claim(reclaim)))
      expect(second).to.deep.include({
        id: first.id,
        generation: 2,
        state: 'claimed',
        owner: otherFacilitator,
        value: 5n,
        attempts: [],
      })
      expect(second).to.deep.include({
        signature: reclaim.signature,
        requestHash: 'new-hash',
        createdAt: first.createdAt,
      })
      for (const absent of [second.txHash, second.error, second.idempotencyKey]) expect(absent).to.equal(undefined)
      // The old claimant's transaction still leads to the row, for audit.
      const byOldHash = await right(journal().findByTxHash(old.txHash))
      expect(O.isSome(byOldHash) && byOldHash.value).to.deep.equal(second)
    })

    it('stores addresses and hashes lower-case and finds them whatever their case', async () => {
      const input = newSettlement()
      const shouted = {
        ...input,
        asset: upper(input.asset),
        payer: upper(input.payer),
        nonce: upper(input.nonce),
        payee: upper(input.payee),
      }
      const settlement = claimed(await right(journal().claim({ ...shouted, owner: upper(otherFacilitator) })))
      expect(settlement).to.deep.include({
        asset: input.asset,
        payer: input.payer,
        nonce: input.nonce,
        payee: input.payee,
        owner: otherFacilitator,
      })
      expect(await steps().load(input)).to.deep.equal(settlement)
      expect(await steps().load(shouted)).to.deep.equal(settlement)
      const sent = attempt()
      await right(journal().markSubmitted(refOf(settlement), { ...sent, txHash: upper(sent.txHash) }))
      expect((await steps().load(input)).txHash).to.equal(sent.txHash)
      expect(O.isSome(await right(journal().findByTxHash(upper(sent.txHash))))).to.equal(true)
    })
  })

  describe('look-ups', () => {
    it('answers none for a missing row by key, transaction hash and idempotency key', async () => {
      expect(await right(journal().findByKey(newSettlement()))).to.deep.equal(O.none)
      expect(await right(journal().findByTxHash(uniqueHex(32)))).to.deep.equal(O.none)
      expect(await right(journal().findByIdempotencyKey('never-used'))).to.deep.equal(O.none)
    })

    it("finds a row by key, by any of its attempts' hashes and by idempotency key", async () => {
      const settlement = await steps().claimNew({ idempotencyKey: 'lookup-key' })
      const first = attempt()
      const replacement = attempt({ maxFeePerGas: first.maxFeePerGas * 2n })
      await right(journal().markSubmitted(refOf(settlement), first))
      await right(journal().addAttempt(refOf(settlement), replacement))
      const row = await steps().load(settlement)
      expect(row.attempts).to.deep.equal([first, replacement])
      for (const found of [
        await right(journal().findByTxHash(first.txHash)),
        await right(journal().findByTxHash(replacement.txHash)),
        await right(journal().findByIdempotencyKey('lookup-key')),
      ]) {
        expect(found).to.deep.equal(O.some(row))
      }
    })

    it('answers the latest claim for an idempotency key, a new row or a released one claimed again', async () => {
      const older = await steps().claimNew({ idempotencyKey: 'shared-key' })
      const newer = await steps().claimNew({ idempotencyKey: 'shared-key' })
      expect(await right(journal().findByIdempotencyKey('shared-key'))).to.deep.equal(O.some(newer))
      await right(journal().markReleased(refOf(older), 'claimed', 'not broadcast'))
      const again = claimed(
        await right(journal().claim({ ...newSettlement(), ...keyOf(older), idempotencyKey: 'shared-key' })),
      )
      expect(await right(journal().findByIdempotencyKey('shared-key'))).to.deep.equal(O.some(again))
    })
  })
}
