import { expect } from 'chai'
import { lockGuarded, type PreparedTransfer, type TransferSubmitter, ReplicaLockGate } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pino } from 'pino'

const prepared: PreparedTransfer = {
  txHash: `0x${'11'.repeat(32)}`,
  raw: '0x02',
  accountNonce: 7n,
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
}
const signing = {
  prepare: () => TE.right(prepared),
  prepareReplacement: () => TE.right({ _tag: 'Prepared' as const, transfer: prepared }),
  fillNonceGaps: () => TE.right([3n]),
} as const satisfies Partial<TransferSubmitter>
const submitter = (): TransferSubmitter => ({
  ...signing,
  discard: () => async () => undefined,
  abandon: () => async () => undefined,
  send: () => TE.right({ _tag: 'Unconfirmed' }),
  waitForReceipt: () => async () => O.none,
  receiptOf: () => TE.left({ _tag: 'ChainUnavailable', reason: 'unused' }),
  rebroadcast: () => TE.right(undefined),
  minedNonce: () => TE.right(0n),
  heldByNode: () => TE.right(false),
})
const authorization = {
  from: `0x${'aa'.repeat(20)}`,
  to: `0x${'bb'.repeat(20)}`,
  value: 1n,
  validAfter: 0n,
  validBefore: 1n,
  nonce: `0x${'cc'.repeat(32)}`,
} as const

describe('replica lock gate', () => {
  const gate = () => new ReplicaLockGate(pino({ level: 'silent' }))

  it('held: settles, ready', async () => {
    const g = gate()
    expect(g.settleRefusal()).to.equal(undefined)
    expect(g.lockHeld).to.equal(true)
  })

  it('lost: refuses settles naming the reason, fails readiness, and the guarded submitter signs nothing', async () => {
    const g = gate()
    g.lost('connection closed')
    expect(g.lockHeld).to.equal(false)
    expect(g.settleRefusal()).to.include('lost its Postgres advisory lock (connection closed)')
    const guarded = lockGuarded(g, submitter())
    expect(E.isLeft(await guarded.prepare(authorization, '0x01')())).to.equal(true)
    expect(E.isLeft(await guarded.prepareReplacement(prepared)())).to.equal(true)
    expect(E.isLeft(await guarded.fillNonceGaps([1n])())).to.equal(true)
    // What needs no key goes on: a stored transaction may still be sent.
    expect(E.isRight(await guarded.rebroadcast('0x02', '0x00000000000000000000000000000000000000aa')())).to.equal(true)
  })

  it('regained: the lock is held (recovery and signing may run) but settles wait for a pass begun after the regain', async () => {
    const g = gate()
    const regained: number[] = []
    g.onRegained(() => regained.push(g.currentEra))
    g.lost('connection closed')
    const eraBeforeRegain = g.currentEra
    g.regained()
    expect(regained).to.have.length(1)
    expect(g.lockHeld).to.equal(true)
    expect(E.isRight(await lockGuarded(g, submitter()).prepare(authorization, '0x01')())).to.equal(true)
    expect(g.settleRefusal()).to.include('recovering its rows')
    g.recovered(eraBeforeRegain)
    expect(g.settleRefusal()).to.not.equal(undefined)
    g.recovered(g.currentEra)
    expect(g.settleRefusal()).to.equal(undefined)
  })

  it('a loss during the recovery pass keeps settles refused', () => {
    const g = gate()
    g.lost('connection closed')
    g.regained()
    const era = g.currentEra
    g.lost('terminated')
    g.lost('another session holds it', true)
    g.recovered(era)
    expect(g.settleRefusal()).to.include('another session holds it')
  })

  it("shared by a network's tokens: settles resume only once every lane's pass since the regain has ended", () => {
    const g = gate()
    const [usdc, eurc] = [g.register(), g.register()]
    g.lost('connection closed')
    g.regained()
    g.recovered(g.currentEra, usdc)
    expect(g.settleRefusal()).to.include('recovering its rows')
    g.recovered(g.currentEra, usdc)
    expect(g.settleRefusal()).to.include('recovering its rows')
    g.recovered(g.currentEra, eurc)
    expect(g.settleRefusal()).to.equal(undefined)
  })

  it("runs its lanes' passes one after another, whichever lane queued them", async () => {
    const g = gate()
    const running: string[] = []
    let overlap = false
    const pass = (name: string, release: Promise<void>) => async () => {
      if (running.length > 0) overlap = true
      running.push(name)
      await release
      running.splice(running.indexOf(name), 1)
      return name
    }
    let releaseFirst = () => {}
    const first = g.inTurn(pass('usdc', new Promise<void>((resolve) => (releaseFirst = resolve))))
    const second = g.inTurn(pass('eurc', Promise.resolve()))
    await Promise.resolve()
    expect(running).to.deep.equal(['usdc'])
    releaseFirst()
    expect(await Promise.all([first, second])).to.deep.equal(['usdc', 'eurc'])
    expect(overlap).to.equal(false)
  })
})
