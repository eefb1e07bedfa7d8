import { makeLanePicker, pickLane } from '@x402-facilitator/domain'
import { expect } from 'chai'

const lanes = (...inFlight: Array<number | 'unavailable'>) =>
  inFlight.map((n) => (n === 'unavailable' ? { inFlight: 0, available: false } : { inFlight: n, available: true }))

describe('lane picker (docs/ARCHITECTURE.md §5.8)', () => {
  it('picks the lane with the fewest settles in flight', () => {
    expect(pickLane(lanes(3, 1, 2), 0)).to.equal(1)
    expect(pickLane(lanes(0, 5, 5), 2)).to.equal(0)
  })
  it('among equals, the first at or after the cursor, going round', () => {
    expect(pickLane(lanes(1, 1, 1), 0)).to.equal(0)
    expect(pickLane(lanes(1, 1, 1), 2)).to.equal(2)
    expect(pickLane(lanes(1, 2, 1), 1)).to.equal(2)
    expect(pickLane(lanes(1, 2, 1), 3 % 3)).to.equal(0)
  })
  it('skips lanes whose lock is not held, however idle; none available: undefined', () => {
    expect(pickLane(lanes('unavailable', 4, 2), 0)).to.equal(2)
    expect(pickLane(lanes('unavailable', 'unavailable'), 1)).to.equal(undefined)
    expect(pickLane([], 0)).to.equal(undefined)
  })
  it('equal lanes take turns: the cursor moves past each lane picked', () => {
    const pick = makeLanePicker()
    const idle = lanes(0, 0, 0)
    expect([pick(idle), pick(idle), pick(idle), pick(idle)]).to.deep.equal([0, 1, 2, 0])
    // Loads as they grow while settles stay in flight: each new settle goes to a least loaded lane.
    const load = [0, 0, 0]
    for (let i = 0; i < 9; i++) load[pick(load.map((n) => ({ inFlight: n, available: true }))) as number]! += 1
    expect(load).to.deep.equal([3, 3, 3])
  })
  it('one lane: always that one while it is available', () => {
    const pick = makeLanePicker()
    expect([pick(lanes(7)), pick(lanes(0)), pick(lanes('unavailable'))]).to.deep.equal([0, 0, undefined])
  })
})
