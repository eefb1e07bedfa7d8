import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  evmMechanism,
  makeInMemoryPayerExposure,
  type EvmMechanismDeps,
  makeSubmissionQueue,
  type FacilitatorPolicy,
  type LaneMechanism,
  type Hex,
  type PaymentRequest,
  type RecoveryDeps,
  type SettleDeps,
  type SettleFinality,
  type SignatureVerifier,
  type SubmissionQueue,
  type EvmAddress as Address,
} from '@x402-facilitator/domain'
import { FakeJournal } from './fake-journal.js'
import { FakeSubmitter } from './fake-submitter.js'
import { FakeToken } from './fake-token.js'
import { FACILITATOR, GOOD_SIGNATURE, NOW, NOW_S, PAYEE, PAYER, TOKEN } from './sample-values.js'
import { makeTestClock, type TestClock } from './test-clock.js'

export { FakeJournal }
export { FakeSubmitter } from './fake-submitter.js'
export { FakeToken } from './fake-token.js'
export * from './sample-values.js'

let answers = 0
/** A settle's `answerId`: unique to each request, as the HTTP route makes it. */
export const nextAnswerId = (): string => `answer-${++answers}`

export const policy: FacilitatorPolicy = {
  network: 'eip155:31337',
  asset: { address: TOKEN, symbol: 'USDC', decimals: 6 },
  facilitator: FACILITATOR,
  validityMarginSeconds: 6n,
  receiptTimeoutMs: 30_000,
}

export const validRequest = (overrides: { value?: bigint; amount?: bigint; nonce?: Hex } = {}): PaymentRequest => ({
  payload: {
    x402Version: 2,
    scheme: 'exact',
    network: policy.network,
    signature: GOOD_SIGNATURE,
    authorization: {
      from: PAYER,
      to: PAYEE,
      value: overrides.value ?? 1_000_000n,
      validAfter: NOW_S - 60n,
      validBefore: NOW_S + 600n,
      nonce: overrides.nonce ?? `0x${'ab'.repeat(32)}`,
    },
  },
  requirements: {
    x402Version: 2,
    scheme: 'exact',
    network: policy.network,
    amount: 1_000_000n,
    asset: TOKEN,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
  },
})

/** An ERC-6492 signature of an undeployed payer whose factory is not allowed (what the adapter answers for it). */
export const UNLISTED_FACTORY_SIGNATURE: Hex = `0x${'64'.repeat(200)}`
export const UNLISTED_FACTORY: Address = `0x${'fa'.repeat(20)}`

export const fakeSignatures = (): SignatureVerifier => ({
  checkAuthorization: (_authorization, signature) =>
    TE.right(
      signature === GOOD_SIGNATURE
        ? { _tag: 'SignatureValid' }
        : signature === UNLISTED_FACTORY_SIGNATURE
          ? { _tag: 'FactoryNotAllowed', factory: UNLISTED_FACTORY }
          : { _tag: 'SignatureInvalid', detail: 'recovered another signer' },
    ),
})

/** Pinned time (no test moves it); real (short) sleeps: a waiting retry interleaves with the request it waits for. */
export const testClock: TestClock = makeTestClock(NOW)

interface DepsOptions {
  readonly maxItems?: number
  readonly windowMs?: number
}

/**
 * `maxItems` > 1: settles go through the submission queue's batches (docs/ARCHITECTURE.md §5.7), whose window
 * (`windowMs`, 25 unless given) passes only when the test moves `clock`; `queued()` counts the payments handed to it.
 */
export const makeDeps = ({ maxItems = 1, windowMs = 25 }: DepsOptions = {}) => {
  const token = new FakeToken()
  const journal = new FakeJournal()
  const submitter = new FakeSubmitter()
  const exposure = makeInMemoryPayerExposure()
  const clock = makeTestClock(NOW)
  const queue = makeSubmissionQueue({ journal, submitter, clock }, { maxItems, windowMs })
  let queued = 0
  const submissions: SubmissionQueue = {
    submit: (submission) => {
      queued++
      return queue.submit(submission)
    },
  }
  const signatures = fakeSignatures()
  // Recovery's ports: every owner alive, the documented defaults (recovery tests set their own).
  const liveness = { isAlive: () => TE.right(true) }
  const recovery = testRecoveryPolicy
  const deps = withEvm({
    policy,
    clock,
    signatures,
    token,
    exposure,
    journal,
    submitter,
    submissions,
    liveness,
    recovery,
  })
  return { deps, token, journal, submitter, exposure, clock, windowMs, queued: () => queued }
}

/** The fakes' ports with the EVM payment mechanism over them. */
export type TestDeps = SettleDeps & EvmMechanismDeps & { readonly mechanism: LaneMechanism<PaymentRequest> }

/** The mechanism made over these ports: a test that swaps a port (a clock, a journal, …) settles through it. */
export const withEvm = (ports: Omit<SettleDeps, 'mechanism'> & EvmMechanismDeps): TestDeps => ({
  ...ports,
  mechanism: evmMechanism(ports),
})

/** Recovery's settings in the domain's tests: the documented defaults. */
export const testRecoveryPolicy: RecoveryDeps['recovery'] = {
  minAgeMs: 10_000,
  claimTimeoutMs: 30_000,
  replaceAfterMs: 15_000,
  batchSize: 100,
  unsettleableAfterMs: 600_000,
  unsettleableAfterTries: 3,
  refusalBackoffMs: 1_000,
}

/** A head followed but the row never made final within the wait (`SETTLE_WAIT_FOR=final`). */
export const neverFinal: SettleFinality = {
  confirmationsOf: () => 3,
  waitFinal: () => ({ done: Promise.resolve(false), cancel: () => undefined }),
}
