import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  MAX_SETTLE_TURNS,
  settlePayment,
  type ClaimResult,
  type Settlement,
  type SettlementJournal,
} from '@x402-facilitator/domain'
import { FACILITATOR, NOW, makeDeps, nextAnswerId, policy, validRequest, withEvm } from './fakes.js'

/** docs/ARCHITECTURE.md §5.2: a row met released is settled anew, in turns, at most `MAX_SETTLE_TURNS` of them. */
const keyed = () => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  idempotencyKey: 'key-1',
  requestHash: 'digest-1',
})

describe('settlePayment in bounded turns', () => {
  const request = validRequest()
  const { from: payer, nonce, to, value, validAfter, validBefore } = request.payload.authorization
  const released: Settlement = {
    network: policy.network,
    asset: policy.asset.address,
    payer,
    nonce,
    id: 'row-1',
    generation: 1,
    state: 'released',
    payee: to,
    value,
    validAfter,
    validBefore,
    signature: request.payload.signature,
    owner: FACILITATOR,
    attempts: [],
    idempotencyKey: 'key-1',
    requestHash: 'digest-1',
    createdAt: NOW,
    updatedAt: NOW,
  }

  it('a retry whose row is released at each claim stops after MAX_SETTLE_TURNS claims: 503, nothing held', async () => {
    const d = makeDeps()
    let claims = 0
    // A journal that answers every claim with this request's row, released (another request's claims, released
    // between).
    const journal: SettlementJournal = {
      ...d.journal,
      findByIdempotencyKey: () => TE.right(O.some(released)),
      findByKey: () => TE.right(O.some(released)),
      claim: () => {
        claims++
        return TE.right<never, ClaimResult>({ _tag: 'Conflict', existing: released })
      },
    }
    const options = keyed()
    const result = await settlePayment(request, options)(withEvm({ ...d.deps, journal }))()
    expect(E.isLeft(result) && result.left).to.deep.include({ _tag: 'ChainUnavailable' })
    expect(claims).to.equal(MAX_SETTLE_TURNS)
    expect(d.submitter.broadcasts).to.have.length(0)
    expect(d.exposure.inFlight(payer)).to.equal(0n)
  })

  it('a row released once is settled anew on the next turn', async () => {
    const d = makeDeps()
    const options = keyed()
    let met = 0
    const journal: SettlementJournal = {
      ...d.journal,
      findByIdempotencyKey: (key) => (met++ === 0 ? TE.right(O.some(released)) : d.journal.findByIdempotencyKey(key)),
    }
    const result = await settlePayment(request, options)(withEvm({ ...d.deps, journal }))()
    expect(E.isRight(result) && result.right).to.deep.include({ _tag: 'Settled', replayed: false })
    expect(d.submitter.broadcasts).to.have.length(1)
  })
})
