import { expect } from 'chai'
import {
  judgeReceipt,
  makePenaltyBox,
  type EvmAddress as Address,
  type Hex,
  type TransferReceipt,
} from '@x402-facilitator/domain'
import { makeTestClock } from './test-clock.js'

const PENALTY_MS = 600_000
const payer = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`
let txs = 0
const receipt = (succeeded: boolean, revertReason?: string): TransferReceipt => ({
  txHash: `0x${(++txs).toString(16).padStart(64, '0')}` as Hex,
  blockNumber: 1n,
  blockHash: `0x${'b'.repeat(64)}`,
  succeeded,
  gasUsed: 40_000n,
  ...(revertReason === undefined ? {} : { revertReason }),
})

/** docs/ARCHITECTURE.md §5.7: the budget of gas lost to reverts for the funds of payers without code. */
describe('penalty box: gas lost to payers without code whose funds left', () => {
  const box = () => {
    const clock = makeTestClock(new Date('2026-01-01T00:00:00Z'))
    const penalties = makePenaltyBox(clock, {
      penaltyMs: PENALTY_MS,
      lostGasBudget: 10n ** 9n,
      fundsLostGasBudget: 80_000n,
    })
    const judge = (who: Address, r: TransferReceipt) =>
      judgeReceipt(penalties, 300_000n, { payer: who, payerHasCode: false }, r)
    return { clock, penalties, judge }
  }

  it('reverts for funds spend it: then a payer not seen paying is refused until the oldest revert leaves the window, one that paid is not', () => {
    const { clock, penalties, judge } = box()
    judge(payer(1), receipt(true))
    judge(payer(2), receipt(false, 'ERC20: transfer amount exceeds balance'))
    expect(penalties.newPayersRefusedUntil(payer(9))).to.equal(undefined)
    clock.advance(1_000)
    judge(payer(3), receipt(false, 'TRANSFER_FROM_FAILED'))
    const until = penalties.newPayersRefusedUntil(payer(9))
    expect(until?.getTime()).to.equal(clock.now().getTime() - 1_000 + PENALTY_MS)
    expect(penalties.newPayersRefusedUntil(payer(1))).to.equal(undefined)
    // Both drained payers are suspended themselves.
    expect(penalties.sendingRefusedUntil(payer(3))).to.not.equal(undefined)
    clock.advance(PENALTY_MS - 1_000)
    expect(penalties.newPayersRefusedUntil(payer(9))).to.equal(undefined)
  })

  it('other reverts (a used authorization: a copy of ours mined first) and the same receipt judged twice do not count', () => {
    const { penalties, judge } = box()
    judge(payer(2), receipt(false, 'FiatTokenV2: authorization is used or canceled'))
    judge(payer(3), receipt(false, 'FiatTokenV2: authorization is used or canceled'))
    const drained = receipt(false, 'ERC20: transfer amount exceeds balance')
    judge(payer(4), drained)
    judge(payer(4), drained)
    expect(penalties.newPayersRefusedUntil(payer(9))).to.equal(undefined)
  })

  it('a payer seen paying in a settler batch is no new payer; a failed batch item does not count', () => {
    const { penalties } = box()
    const batch: TransferReceipt = {
      ...receipt(true),
      items: [
        { index: 0, succeeded: true },
        { index: 1, succeeded: false, gasUsed: 30_000n },
      ],
    }
    judgeReceipt(penalties, 300_000n, { payer: payer(5), payerHasCode: false, batchIndex: 0 }, batch)
    judgeReceipt(penalties, 300_000n, { payer: payer(6), payerHasCode: false, batchIndex: 1 }, batch)
    penalties.lostGas(80_000n, 'funds')
    expect(penalties.newPayersRefusedUntil(payer(5))).to.equal(undefined)
    expect(penalties.newPayersRefusedUntil(payer(6))).to.not.equal(undefined)
  })

  it('unset: no such bound', () => {
    const clock = makeTestClock(new Date('2026-01-01T00:00:00Z'))
    const penalties = makePenaltyBox(clock, { penaltyMs: PENALTY_MS, lostGasBudget: 1n })
    penalties.lostGas(10n ** 9n, 'funds')
    expect(penalties.newPayersRefusedUntil(payer(9))).to.equal(undefined)
    // Nor do those losses count for payers with code.
    expect(penalties.mayBatch(payer(9), true)).to.equal(true)
  })
})
