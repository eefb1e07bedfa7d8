import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { settlePayment, type SettleFinality, type SettleOptions, type SettleOutcome } from '@x402-facilitator/domain'
import { NOW, makeDeps, nextAnswerId, policy, validRequest, withEvm, type TestDeps } from './fakes.js'

const from = (extra: Partial<SettleOptions> = {}): SettleOptions => ({
  requirementsRecord: {},
  answerId: nextAnswerId(),
  caller: 'api:a',
  requestHash: 'digest-1',
  ...extra,
})
const run = async (deps: TestDeps, options: SettleOptions): Promise<SettleOutcome> => {
  const result = await settlePayment(validRequest(), options)(withEvm(deps))()
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}

/** A watch at a head 5 blocks above every block; `final`: it makes the waited row final (in the fake journal). */
const watch = (d: ReturnType<typeof makeDeps>, final: boolean) => {
  const waits: Array<{ readonly id: string; readonly ms: number }> = []
  const finality: SettleFinality = {
    confirmationsOf: () => 5,
    waitFinal: (id, ms) => {
      waits.push({ id, ms })
      const [key, row] = [...d.journal.rows.entries()].find(([, r]) => r.id === id)!
      if (final) d.journal.rows.set(key, { ...row, state: 'final' })
      return { done: Promise.resolve(final), cancel: () => undefined }
    },
  }
  return { finality, waits }
}

/** docs/ARCHITECTURE.md §5.6: the answer's depth and the `SETTLE_WAIT_FOR=final` wait, through SettleFinality. */
describe('settlePayment and finality (SettleFinality port)', () => {
  it('SETTLE_WAIT_FOR=receipt: the success says how deep its block is; without the port it says nothing', async () => {
    const d = makeDeps()
    const { finality, waits } = watch(d, false)
    expect(await run({ ...d.deps, finality }, from())).to.deep.include({ _tag: 'Settled', confirmations: 5 })
    expect(waits).to.have.length(0)
    const bare = makeDeps()
    expect(await run(bare.deps, from())).to.not.have.property('confirmations')
  })

  it('SETTLE_WAIT_FOR=final: the row made final while waiting is the success, marked, with its depth', async () => {
    const d = makeDeps()
    const { finality, waits } = watch(d, true)
    const options = from({ waitFor: 'final' })
    expect(await run({ ...d.deps, finality }, options)).to.deep.include({ _tag: 'Settled', confirmations: 5 })
    const row = [...d.journal.rows.values()][0]!
    expect(row).to.include({ state: 'final', successAnsweredBy: options.answerId })
    expect(waits.map((w) => w.id)).to.deep.equal([row.id])
  })

  it('SETTLE_WAIT_FOR=final waits what is left of the receipt timeout, counted by the Clock', async () => {
    const d = makeDeps()
    const reads: number[] = []
    // Each read of the clock is 40 ms after the one before.
    const clock = { ...d.deps.clock, now: () => new Date(NOW.getTime() + 40 * reads.push(0)) }
    const waits: Array<{ readonly ms: number; readonly elapsed: number }> = []
    const finality: SettleFinality = {
      confirmationsOf: () => 5,
      waitFinal: (_id, ms) => {
        // The settle's start is the clock's first read; the wait's bound, its latest.
        waits.push({ ms, elapsed: 40 * (reads.length - 1) })
        return { done: Promise.resolve(false), cancel: () => undefined }
      },
    }
    expect((await run({ ...d.deps, clock, finality }, from({ waitFor: 'final' })))._tag).to.equal('Pending')
    expect(waits).to.have.length(1)
    expect(waits[0]!.elapsed).to.be.greaterThan(0)
    expect(waits[0]!.ms).to.equal(policy.receiptTimeoutMs - waits[0]!.elapsed)
  })
})
