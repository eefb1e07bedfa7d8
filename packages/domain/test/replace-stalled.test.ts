import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  evmHex,
  replaceStalled,
  settlePayment,
  type EvmAddress as Address,
  type RecoveryDeps,
} from '@x402-facilitator/domain'
import { makeDeps, nextAnswerId, testClock, testRecoveryPolicy, validRequest, withEvm } from './fakes.js'

/** A settle left waiting for its receipt (broadcast, not mined), then its transaction told stalled at once. */
const pending = async () => {
  const d = makeDeps()
  d.submitter.script = () => E.right({ _tag: 'Unconfirmed' })
  const settled = await settlePayment(validRequest(), { requirementsRecord: {}, answerId: nextAnswerId() })(
    withEvm(d.deps),
  )()
  expect(E.isRight(settled) && settled.right._tag).to.equal('Pending')
  const deps: RecoveryDeps = {
    ...d.deps,
    clock: testClock,
    liveness: { isAlive: () => TE.right(true) },
    // Recovery itself would wait a quarter of an hour for it.
    recovery: { ...testRecoveryPolicy, replaceAfterMs: 900_000 },
  }
  const row = () => [...d.journal.rows.values()][0]!
  const replace = async (txHash = row().attempts[0]!.txHash, withDeps = deps) => {
    const outcome = await replaceStalled(evmHex(txHash))(withDeps)()
    if (E.isLeft(outcome)) throw new Error(outcome.left.reason)
    return outcome.right
  }
  return { d, row, replace, deps }
}

describe('replaceStalled (a stalled lowest transaction, issue 38 item 6)', () => {
  it('replaces it at once, whatever replaceAfterMs: a new attempt at its nonce with raised fees, recorded, then sent naming the one it replaces', async () => {
    const { d, row, replace } = await pending()
    const stalled = row().attempts[0]!
    expect(await replace()).to.equal('replaced')
    const [first, second] = row().attempts
    expect(row().attempts).to.have.length(2)
    expect(first!.txHash).to.equal(stalled.txHash)
    expect(second!.accountNonce).to.equal(stalled.accountNonce)
    expect(second!.maxFeePerGas! * 10n >= stalled.maxFeePerGas! * 11n).to.equal(true)
    expect(d.submitter.rebroadcasts).to.deep.equal([second!.raw])
    expect(d.submitter.replacing).to.deep.equal([stalled.txHash])
  })

  it('told twice (two lanes of the key), or for an attempt replaced since: one replacement', async () => {
    const { row, replace } = await pending()
    const stalled = row().attempts[0]!.txHash
    expect(await replace(stalled)).to.equal('replaced')
    expect(await replace(stalled)).to.equal('stale')
    expect(row().attempts).to.have.length(2)
  })

  it("another key's row, a row no longer submitted, or a hash no row names: left alone", async () => {
    const { d, row, replace, deps } = await pending()
    const other: Address = `0x${'cc'.repeat(20)}`
    expect(await replace(undefined, { ...deps, policy: { ...deps.policy, facilitator: other } })).to.equal('stale')
    expect(await replace(`0x${'ab'.repeat(32)}`)).to.equal('stale')
    d.journal.rows.set([...d.journal.rows.keys()][0]!, { ...row(), state: 'released' })
    expect(await replace()).to.equal('stale')
    expect(d.submitter.rebroadcasts).to.deep.equal([])
  })
})
