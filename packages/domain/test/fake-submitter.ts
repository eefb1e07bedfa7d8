import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  chainUnavailable,
  type EvmAddress as Address,
  type BatchItem,
  type BatchItemOutcome,
  type Hex,
  type TxHash,
  type PreparedTransfer,
  type SendFailure,
  type SendOutcome,
  type TransferReceipt,
  type TransferSubmitter,
} from '@x402-facilitator/domain'
import { FakeAccountNonces } from './fake-account-nonces.js'
import { receiptFor } from './sample-values.js'

type SendScript = (prepared: PreparedTransfer) => E.Either<SendFailure, SendOutcome>

/**
 * Prepares distinct transactions and answers `send` as the test scripts it; records every broadcast. Its account's
 * nonces behave as the chain adapter's (the chain contract suite holds both to the same cases).
 */
export class FakeSubmitter extends FakeAccountNonces implements TransferSubmitter {
  down = false
  readonly broadcasts: PreparedTransfer[] = []
  readonly discarded: bigint[] = []
  script: SendScript = (prepared) =>
    E.right({ _tag: 'Mined', receipt: this.receiptOfBatch(prepared) ?? receiptFor(prepared, true) })
  /** A batch's receipt: the transaction succeeded, each item as `itemOutcome` says. */
  receiptOfBatch(prepared: PreparedTransfer): TransferReceipt | undefined {
    const size = this.batchSizes.get(prepared.txHash)
    if (size === undefined) return undefined
    const items = this.batchItems.get(prepared.txHash)!
    const outcomes = Array.from({ length: size }, (_, i) => this.itemOutcome(i, items[i]!))
    return { ...receiptFor(prepared, true), gasUsed: 60_000n * BigInt(size), items: outcomes }
  }

  /** The trial gas each `prepare` was given. */
  readonly preparedGas: Array<bigint | undefined> = []
  /** The signature bytes each `prepare` was given. */
  readonly preparedSignatures: Hex[] = []
  readonly prepare: TransferSubmitter['prepare'] = (_authorization, signature, executionGas) => {
    this.preparedGas.push(executionGas)
    this.preparedSignatures.push(signature)
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    const accountNonce = this.handOut()
    const txHash = this.hashAt(accountNonce, 'e')
    return TE.right({ txHash, raw: '0x02', accountNonce, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
  }
  /** The size of each batch `prepareBatch` signed, and its hash → size. */
  readonly batches: number[] = []
  readonly batchSizes = new Map<string, number>()
  /** What each item of a batch comes to [success]. */
  itemOutcome: (index: number, item: BatchItem) => BatchItemOutcome = (index) => ({ index, succeeded: true })
  /** The items of each batch, by its hash. */
  readonly batchItems = new Map<string, ReadonlyArray<BatchItem>>()
  readonly prepareBatch: NonNullable<TransferSubmitter['prepareBatch']> = (items) => {
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    const accountNonce = this.handOut()
    this.batches.push(items.length)
    const txHash = this.hashAt(accountNonce, 'b')
    this.batchSizes.set(txHash, items.length)
    this.batchItems.set(txHash, items)
    return TE.right({ txHash, raw: '0x02ba', accountNonce, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
  }
  readonly abandoned: bigint[] = []
  readonly abandon = (prepared: PreparedTransfer) => {
    this.abandoned.push(prepared.accountNonce)
    this.setAside(prepared.accountNonce)
    return T.of(undefined)
  }
  readonly discard = (prepared: PreparedTransfer) => {
    this.discarded.push(prepared.accountNonce)
    this.giveBack(prepared.accountNonce)
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
  /** Broadcasts; a receipt the script answers is the chain's from then on (`receiptOf`, `minedNonce`). */
  readonly send = (prepared: PreparedTransfer) => {
    this.broadcasts.push(prepared)
    this.markBroadcast(prepared.accountNonce)
    return async () => {
      await this.sendGate
      const outcome = await new Promise<ReturnType<SendScript>>((resolve) =>
        setTimeout(() => resolve(this.script(prepared)), 0),
      )
      if (E.isRight(outcome) && outcome.right._tag === 'Mined') this.recordMined(prepared, outcome.right.receipt)
      return outcome
    }
  }
  private recordMined(prepared: PreparedTransfer, receipt: TransferReceipt): void {
    this.mined.set(prepared.txHash, receipt)
    if (this.minedCount <= prepared.accountNonce) this.minedCount = prepared.accountNonce + 1n
  }
  /** Receipts the chain knows, by transaction hash. */
  readonly mined = new Map<string, TransferReceipt>()
  /** A later waiter of a broadcast transaction: its receipt if it is in `mined`, else none (on a later turn). */
  readonly waitForReceipt = (prepared: PreparedTransfer) => async () => {
    await new Promise((resolve) => setTimeout(resolve, 0))
    return O.fromNullable(this.mined.get(prepared.txHash))
  }
  readonly rebroadcasts: Hex[] = []
  readonly receiptOf = (hashes: ReadonlyArray<TxHash>) =>
    this.down
      ? TE.left(chainUnavailable('connection refused'))
      : TE.right(O.fromNullable(hashes.map((h) => this.mined.get(h)).find((r) => r !== undefined)))
  /** The transactions each replacement sent named as the one it replaces. */
  readonly replacing: Hex[] = []
  readonly rebroadcast = (raw: Hex, _sender: Address, replacing?: Hex) => {
    this.rebroadcasts.push(raw)
    if (replacing !== undefined) this.replacing.push(replacing)
    return TE.right(undefined)
  }
  /** Set: the fee cap leaves no room to outbid the previous attempt. */
  atFeeCap = false
  private replacements = 0
  /** The same call (a batch's items too) at the same nonce, fees raised by 10 % and 1 wei, under a hash of its own. */
  readonly prepareReplacement: TransferSubmitter['prepareReplacement'] = (previous) => {
    if (this.atFeeCap) return TE.right({ _tag: 'AtFeeCap' })
    const txHash: Hex = `0x${previous.txHash.slice(2, 58)}${(++this.replacements).toString(16).padStart(6, 'f')}`
    const items = this.batchItems.get(previous.txHash)
    if (items !== undefined) {
      this.batchSizes.set(txHash, items.length)
      this.batchItems.set(txHash, items)
    }
    const transfer = {
      ...previous,
      txHash,
      raw: '0x02beef' as const,
      maxFeePerGas: (previous.maxFeePerGas * 11n) / 10n + 1n,
      maxPriorityFeePerGas: (previous.maxPriorityFeePerGas * 11n) / 10n + 1n,
    }
    return TE.right({ _tag: 'Prepared', transfer })
  }
  /** Transactions in the node's pool (not mined): `heldByNode` answers them and the mined ones. */
  readonly pooled = new Set<string>()
  readonly heldByNode = (hashes: ReadonlyArray<Hex>) =>
    this.down
      ? TE.left(chainUnavailable('connection refused'))
      : TE.right(hashes.some((h) => this.pooled.has(h) || this.mined.has(h)))
  readonly minedNonce = () => (this.down ? TE.left(chainUnavailable('connection refused')) : TE.right(this.minedCount))
  /** The nonces each gap fill was told are journalled. */
  readonly gapFills: Array<ReadonlyArray<bigint>> = []
  readonly fillNonceGaps = (recorded: ReadonlyArray<bigint>) => {
    if (this.down) return TE.left(chainUnavailable('connection refused'))
    this.gapFills.push(recorded)
    return TE.right<never, ReadonlyArray<bigint>>(this.fillGaps(recorded))
  }
}
