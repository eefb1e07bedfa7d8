import type { LeasedDelivery } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { LeaseNeed } from '../src/webhooks/lease-need.js'

const delivery = (endpoint: string, settlementId: string): LeasedDelivery => ({
  id: `${endpoint}/${settlementId}`,
  endpoint,
  settlementId,
  leaseToken: 'token',
  attempts: 1,
  event: {
    eventId: 'e',
    kind: 'pending',
    fromState: null,
    toState: 'submitted',
    createdAt: new Date(0),
    settlement: {},
  },
})

/** docs/ARCHITECTURE.md §5.9: when a delivery pass runs a lease statement, fan-out having leased what it could. */
describe('the webhook worker’s lease need', () => {
  let clockMs: number
  let need: LeaseNeed
  beforeEach(() => {
    clockMs = 0
    need = new LeaseNeed(200, () => clockMs)
  })
  /** A pass: whether it leases; if so, what its lease of `room` on endpoint `a` took. */
  const pass = (took: ReadonlyArray<LeasedDelivery> = [], room = 4): boolean => {
    clockMs += 50
    const due = need.due()
    if (due) need.leased('a', took, room)
    return due
  }

  it('leases at the first pass, then only every half poll period while nothing is wanted', () => {
    expect([pass(), pass(), pass(), pass(), pass()]).to.deep.equal([true, false, true, false, true])
  })

  it('leases after fan-out left deliveries, and after an outcome of a pair that has some left, not of another', () => {
    pass()
    need.fannedOut({ fanned: 2, leased: [], waiting: [{ endpoint: 'a', settlementId: '7' }] })
    expect(pass()).to.equal(true)
    clockMs += 50
    need.ended(delivery('a', '8'))
    expect(need.due()).to.equal(false)
    need.ended(delivery('a', '7'))
    expect(need.due()).to.equal(true)
    // Leased at last: the pair waits no more; its next outcome wants nothing.
    need.leased('a', [delivery('a', '7')], 4)
    clockMs += 50
    need.ended(delivery('a', '7'))
    expect(need.due()).to.equal(false)
  })

  it('while leases fill the room: leases every pass, and fan-out leases that endpoint nothing', () => {
    const full = [delivery('a', '1'), delivery('a', '2')]
    expect(pass(full, 2)).to.equal(true)
    expect(need.fanOutRoom('a', 2)).to.equal(0)
    expect(need.fanOutRoom('b', 2)).to.equal(2)
    expect(pass(full.slice(1), 2)).to.equal(true)
    expect(need.fanOutRoom('a', 2)).to.equal(2)
    expect(pass()).to.equal(false)
  })

  it('forgets pairs with nothing in flight here: the periodic lease finds them', () => {
    pass()
    need.fannedOut({
      fanned: 2,
      leased: [],
      waiting: [
        { endpoint: 'a', settlementId: '7' },
        { endpoint: 'a', settlementId: '9' },
      ],
    })
    pass()
    need.forgetIdle([delivery('a', '9')])
    clockMs += 50
    need.ended(delivery('a', '7'))
    expect(need.due()).to.equal(false)
    need.ended(delivery('a', '9'))
    expect(need.due()).to.equal(true)
  })
})
