import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { FakeJournal } from './fake-journal.js'
import { makeTestClock, type TestClock } from './test-clock.js'
import {
  chainUnavailable,
  makeInMemoryPayerExposure,
  makeSubmissionQueue,
  type Address,
  type Authorization,
  type BatchItem,
  type BatchItemOutcome,
  type FacilitatorPolicy,
  type Hex,
  type AuthorizationEnd,
  type MinedTransaction,
  type PayerState,
  type TransferTrial,
  type PaymentRequest,
  type PreparedTransfer,
  type SendFailure,
  type SendOutcome,
  type SettleDeps,
  type SignatureVerifier,
  type SubmissionQueue,
  type TokenReader,
  type TransferReceipt,
  type TransferSubmitter,
} from '@x402-facilitator/domain'

export { FakeJournal }

let answers = 0
/** A settle's `answerId`: unique to each request, as the HTTP route makes it. */
export const nextAnswerId = (): string => `answer-${++answers}`

export const NOW = new Date('2026-11-22T12:00:00Z')
export const NOW_S = BigInt(NOW.getTime() / 1000)
export const TOKEN: Address = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
export const PAYER: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
export const PAYEE: Address = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
export const FACILITATOR: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
export const GOOD_SIGNATURE: Hex = `0x${'11'.repeat(64)}1b`
export const BAD_SIGNATURE: Hex = `0x${'22'.repeat(64)}1c`

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

export class FakeToken implements TokenReader {
  state: PayerState = { balance: 5_000_000n, authorizationUsed: false }
  down = false
  reads = 0
  readonly domain = TE.right({ name: 'USD Coin', version: '2', chainId: 31337n, verifyingContract: TOKEN })
  readonly payerState = () => {
    this.reads++
    return this.down ? TE.left(chainUnavailable('connection refused')) : TE.right(this.state)
  }
  /** What the trial of the settle's transaction says (rule 10). */
  transfer: TransferTrial = { _tag: 'WouldSucceed', gasUsed: 61_234n }
  /** A trial of one authorization answering otherwise than `transfer` [none]. */
  trialFor: (authorization: Authorization) => TransferTrial | undefined = () => undefined
  /** Whether the trial finds code at the payer's address [unset: not read]. */
  payerHasCode: boolean | undefined
  readonly trialPayment = (authorization: Authorization) => {
    this.reads++
    const code = this.payerHasCode === undefined ? {} : { payerHasCode: this.payerHasCode }
    return this.down ? TE.left(chainUnavailable('connection refused')) : TE.right({ ...this.state, ...code, transfer: this.trialFor(authorization) ?? this.transfer })
  }
  /** The transaction that used the authorization, as the chain's logs would say; none unless a test sets it. */
  usedBy: MinedTransaction | undefined
  readonly authorizationUsedBy = () => TE.right(O.fromNullable(this.usedBy))
  /** The transaction that cancelled the authorization (`AuthorizationCanceled`); none unless a test sets it. */
  cancelledBy: MinedTransaction | undefined
  readonly authorizationEndedBy = () =>
    TE.right(
      O.fromNullable<AuthorizationEnd | undefined>(
        this.cancelledBy ? { ...this.cancelledBy, how: 'cancelled' } : this.usedBy ? { ...this.usedBy, how: 'used' } : undefined,
      ),
    )
}

type SendScript = (prepared: PreparedTransfer) => E.Either<SendFailure, SendOutcome>

/** Prepares distinct transactions and answers `send` as the test scripts it; records every broadcast. */
export class FakeSubmitter implements TransferSubmitter {
  nextNonce = 0n
  down = false
  readonly broadcasts: PreparedTransfer[] = []
  readonly discarded: bigint[] = []
  script: SendScript = (prepared) => E.right({ _tag: 'Mined', receipt: this.receiptOfBatch(prepared) ?? receiptFor(prepared, true) })
  /** A batch's receipt: the transaction succeeded, each item as `itemOutcome` says. */
  receiptOfBatch(prepared: PreparedTransfer): TransferReceipt | undefined {
    const size = this.batchSizes.get(prepared.txHash)
    if (size === undefined) return undefined
    const items = this.batchItems.get(prepared.txHash)!
    return { ...receiptFor(prepared, true), gasUsed: 60_000n * BigInt(size), items: Array.from({ length: size }, (_, i) => this.itemOutcome(i, items[i]!)) }
  }

  /** The trial gas each `prepare` was given. */
  readonly preparedGas: Array<bigint | undefined> = []
  /** The signature bytes each `prepare` was given. */
  readonly preparedSignatures: Hex[] = []
  readonly prepare: TransferSubmitter['prepare'] = (_authorization, signature, executionGas) => {
    this.preparedGas.push(executionGas)
    this.preparedSignatures.push(signature)
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    const accountNonce = this.nextNonce++
    return TE.right({ txHash: `0x${accountNonce.toString(16).padStart(64, 'e')}`, raw: '0x02', accountNonce, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
  }
  /** The size of each batch `prepareBatch` signed, and its hash → size. */
  readonly batches: number[] = []
  readonly batchSizes = new Map<Hex, number>()
  /** What each item of a batch comes to [success]. */
  itemOutcome: (index: number, item: BatchItem) => BatchItemOutcome = (index) => ({ index, succeeded: true })
  /** The items of each batch, by its hash. */
  readonly batchItems = new Map<Hex, ReadonlyArray<BatchItem>>()
  readonly prepareBatch: NonNullable<TransferSubmitter['prepareBatch']> = (items) => {
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    const accountNonce = this.nextNonce++
    this.batches.push(items.length)
    const txHash: Hex = `0x${accountNonce.toString(16).padStart(64, 'b')}`
    this.batchSizes.set(txHash, items.length)
    this.batchItems.set(txHash, items)
    return TE.right({ txHash, raw: '0x02ba', accountNonce, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
  }
  readonly abandoned: bigint[] = []
  readonly abandon = (prepared: PreparedTransfer) => {
    this.abandoned.push(prepared.accountNonce)
    return T.of(undefined)
  }
  readonly discard = (prepared: PreparedTransfer) => {
    this.discarded.push(prepared.accountNonce)
    return T.of(undefined)
  }
  /** What every send waits for before the script answers (on a later turn of the event loop). */
  private sendGate: Promise<void> = Promise.resolve()
  /** Holds sends in flight until the returned function is called. */
  holdSends(): () => void {
    let release = () => {}
    this.sendGate = new Promise<void>((resolve) => (release = resolve))
    return release
  }
  readonly send = (prepared: PreparedTransfer) => {
    this.broadcasts.push(prepared)
    return () =>
      this.sendGate.then(() => new Promise<ReturnType<SendScript>>((resolve) => setTimeout(() => resolve(this.script(prepared)), 0)))
  }
  /** Receipts the chain knows, by transaction hash. */
  readonly mined = new Map<Hex, TransferReceipt>()
  /** A later waiter of a broadcast transaction: its receipt if the test put it in `mined`, else none (on a later turn). */
  readonly waitForReceipt = (prepared: PreparedTransfer) => async () => {
    await new Promise((resolve) => setTimeout(resolve, 0))
    return O.fromNullable(this.mined.get(prepared.txHash))
  }
  readonly rebroadcasts: Hex[] = []
  minedCount = 0n
  readonly receiptOf = (hashes: ReadonlyArray<Hex>) =>
    this.down ? TE.left(chainUnavailable('connection refused')) : TE.right(O.fromNullable(hashes.map((h) => this.mined.get(h)).find((r) => r !== undefined)))
  readonly rebroadcast = (raw: Hex, _sender: Address) => {
    this.rebroadcasts.push(raw)
    return TE.right(undefined)
  }
  /** Set: the fee cap leaves no room to outbid the previous attempt. */
  atFeeCap = false
  readonly prepareReplacement: TransferSubmitter['prepareReplacement'] = (previous) =>
    TE.right(
      this.atFeeCap
        ? { _tag: 'AtFeeCap' }
        : {
            _tag: 'Prepared',
            transfer: {
              ...previous,
              txHash: `0x${previous.txHash.slice(2, 62)}ef`,
              raw: '0x02beef',
              maxFeePerGas: (previous.maxFeePerGas * 11n) / 10n + 1n,
              maxPriorityFeePerGas: (previous.maxPriorityFeePerGas * 11n) / 10n + 1n,
            },
          },
    )
  readonly minedNonce = () => (this.down ? TE.left(chainUnavailable('connection refused')) : TE.right(this.minedCount))
  /** The nonces each gap fill was told are journalled; fills every free nonce between the mined count and the top. */
  readonly gapFills: Array<ReadonlyArray<bigint>> = []
  readonly fillNonceGaps = (recorded: ReadonlyArray<bigint>) => {
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    this.gapFills.push(recorded)
    const top = recorded.reduce((a, b) => (a > b ? a : b), this.minedCount)
    const filled: bigint[] = []
    for (let n = this.minedCount; n < top; n++) if (!recorded.includes(n)) filled.push(n)
    return TE.right<never, ReadonlyArray<bigint>>(filled)
  }
}

/** The hash of block 42, where the fake submitter's receipts are mined. */
export const BLOCK_42: Hex = `0x${'42'.repeat(32)}`

export const receiptFor = (prepared: PreparedTransfer, succeeded: boolean): TransferReceipt => ({
  txHash: prepared.txHash,
  blockNumber: 42n,
  blockHash: BLOCK_42,
  gasUsed: 80_000n,
  succeeded,
  ...(succeeded ? {} : { revertReason: 'FiatToken: insufficient balance' }),
})

/** Pinned time (no test moves it); real (short) sleeps, so that a waiting retry interleaves with the request it waits for. */
export const testClock: TestClock = makeTestClock(NOW)

/**
 * `maxItems` > 1: settles go through the submission queue's batches (docs/ARCHITECTURE.md §5.7), whose window
 * (`windowMs`, 25 unless given) passes only when the test moves `clock`; `queued()` counts the payments handed to it.
 */
export const makeDeps = ({ maxItems = 1, windowMs = 25 }: { readonly maxItems?: number; readonly windowMs?: number } = {}) => {
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
  const deps: SettleDeps = { policy, clock, signatures: fakeSignatures(), token, exposure, journal, submitter, submissions }
  return { deps, token, journal, submitter, exposure, clock, windowMs, queued: () => queued }
}
