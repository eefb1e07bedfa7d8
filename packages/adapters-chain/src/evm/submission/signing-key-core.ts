import type {
  EvmAddress as Address,
  ChainUnavailable,
  Hex,
  PreparedTransfer,
  Replacement,
  SendOutcome,
  TransferSubmitter,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { keccak256, parseTransaction } from 'viem'
import { makeBroadcastQueue, sendFailure } from './broadcast-queue.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { makeFeeOracle } from './fee-oracle.js'
import { lowerCase } from '../hex-bytes.js'
import { makeNonceAllocator } from './nonce-allocator.js'
import { makeNonceGapFiller } from './nonce-gap-filler.js'
import { makeReceiptWatcher, type ToReceipt } from './receipt-watcher.js'
import { readQuantity, rightOrThrow, tryRpc } from '../rpc/rpc-failure.js'
import { singleFlight } from '../rpc/single-flight.js'
import { makeReceiptModeProbe, makeSyncSend, type ReceiptMode } from './sync-send.js'
import { makeSecp256k1TransactionSigner } from '../signing/transaction-signer.js'
import type { GasLimits } from './transfer-gas-limit.js'
import { makeReplacementSigner } from '../signing/replacement-signer.js'
import type { SigningKeyOptions } from './transfer-submitter-options.js'

/** What every token's submitter of one key shares, whatever the token. */
type KeyWide = Pick<
  TransferSubmitter,
  'abandon' | 'discard' | 'rebroadcast' | 'fillNonceGaps' | 'minedNonce' | 'onStalled'
>

/**
 * One signing key's state on one network (docs/ARCHITECTURE.md §5.8): its nonce allocator, broadcast queue, receipt
 * watcher, fee oracle and nonce-gap filler, once, whatever tokens it settles; each token's submitter
 * (rpc-transfer-submitter.ts) builds that token's calls over it, so two tokens' transfers share one nonce sequence.
 */
export interface SigningKeyCore extends KeyWide {
  readonly rpc: ChainRpc
  /** The key's account (lower case). */
  readonly account: Address
  readonly receiptMode: () => Promise<ReceiptMode>
  /** Signs a call at the next account nonce; fees before the nonce, and a failure gives the nonce back. */
  readonly signNext: (to: Address, data: Hex, gas: bigint) => Promise<PreparedTransfer>
  /** Broadcasts and waits up to `waitMs` for the receipt, read by `toReceipt` (the sending token's). */
  readonly send: (
    prepared: PreparedTransfer,
    waitMs: number,
    toReceipt: ToReceipt,
  ) => ReturnType<TransferSubmitter['send']>
  readonly waitForReceipt: (
    prepared: PreparedTransfer,
    waitMs: number,
    toReceipt: ToReceipt,
  ) => ReturnType<TransferSubmitter['waitForReceipt']>
  /** `TransferSubmitter.prepareReplacement`; `gasLimits` for a stored transaction that says no gas limit. */
  readonly prepareReplacement: (
    previous: PreparedTransfer,
    gasLimits: GasLimits,
  ) => TE.TaskEither<ChainUnavailable, Replacement>
}

export const makeSigningKeyCore = (options: SigningKeyOptions): SigningKeyCore => {
  const { rpc } = options
  const signer = makeSecp256k1TransactionSigner(options.privateKey)
  const account = signer.address
  const fees = makeFeeOracle(rpc, { maxFeePerGas: options.maxFeePerGas, cacheMs: options.feeCacheMs })
  const nonces = makeNonceAllocator(() => readQuantity(rpc, 'eth_getTransactionCount', [account, 'pending']))
  const stallListeners: Array<(txHash: Hex) => void> = []
  const watcher = makeReceiptWatcher({
    rpc,
    account,
    onMinedNonce: nonces.observeMined,
    onStalled: (hash) => stallListeners.forEach((listener) => listener(hash)),
    ...(options.stalledAfterMs === undefined ? {} : { stalledAfterMs: options.stalledAfterMs }),
  })
  // A nonce given back below one the broadcast queue sends afterwards is filled once that one is booked
  // (nonce-gap-filler.ts).
  const broadcasts = makeBroadcastQueue({
    rpc,
    nonces,
    onBooked: () => void gapFiller.fillReturnedGaps(),
    ...(options.broadcastHoldMs === undefined ? {} : { maxHoldMs: options.broadcastHoldMs }),
  })
  const receiptMode = makeReceiptModeProbe(rpc, options.receiptMode)
  const chainId = singleFlight<ChainUnavailable, number>(
    options.chainId !== undefined
      ? TE.right(options.chainId)
      : tryRpc('reading the chain id', async () => Number(await readQuantity(rpc, 'eth_chainId'))),
  )
  const gapFiller = makeNonceGapFiller({ rpc, signer, nonces, fees, broadcasts, chainId })

  const signNext = async (to: Address, data: Hex, gas: bigint): Promise<PreparedTransfer> => {
    const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.current()])
    const nonce = await nonces.allocate()
    try {
      const { raw, hash } = signer.sign({ chainId: id, nonce: Number(nonce), to, data, gas, ...txFees })
      return { txHash: hash, raw, accountNonce: nonce, gasLimit: gas, ...txFees }
    } catch (error) {
      nonces.release(nonce)
      throw error
    }
  }

  const watch = async (prepared: PreparedTransfer, deadline: number, toReceipt: ToReceipt): Promise<SendOutcome> => {
    const receipt = await watcher.wait(
      prepared.txHash,
      prepared.accountNonce,
      deadline - performance.now(),
      toReceipt,
      prepared.raw,
    )
    return receipt ? { _tag: 'Mined', receipt } : { _tag: 'Unconfirmed' }
  }

  return {
    rpc,
    account,
    receiptMode,
    signNext,

    send: (prepared, waitMs, toReceipt) => async () => {
      const deadline = performance.now() + waitMs
      if ((await receiptMode()) === 'sync') {
        const sendSync = makeSyncSend({
          rpc,
          nonces,
          mined: async (receipt) => ({ _tag: 'Mined', receipt: await toReceipt(receipt) }),
          watch: (p, until) => watch(p, until, toReceipt),
        })
        return sendSync(prepared, waitMs, deadline)
      }
      const sent = await broadcasts.send(prepared.raw, prepared.accountNonce)
      if (E.isLeft(sent)) return sent
      return E.right(await watch(prepared, deadline, toReceipt))
    },

    waitForReceipt: (prepared, waitMs, toReceipt) => async () =>
      O.fromNullable(await watcher.wait(prepared.txHash, prepared.accountNonce, waitMs, toReceipt, prepared.raw)),

    abandon: (prepared) => async () => {
      nonces.setAside(prepared.accountNonce)
      broadcasts.wake()
    },

    discard: (prepared) => async () => {
      nonces.release(prepared.accountNonce)
      broadcasts.wake()
      await gapFiller.fillReturnedGaps()
    },

    onStalled: (listener) => {
      stallListeners.push(listener)
    },

    rebroadcast: (raw, sender, replacing) => async () => {
      // Another account's transaction goes straight to the node: booked in our queue, its nonce would look like ours.
      if (lowerCase(sender) !== account) {
        try {
          await rpc.write('eth_sendRawTransaction', [raw])
          return E.right(undefined)
        } catch (error) {
          const failure = sendFailure(error)
          return failure === 'already known' ? E.right(undefined) : E.left(failure)
        }
      }
      let nonce: bigint
      try {
        nonce = BigInt(parseTransaction(raw).nonce ?? 0)
      } catch {
        return E.left({ _tag: 'SendRejected', reason: 'the stored transaction does not parse' })
      }
      if (replacing !== undefined) watcher.follow(replacing, keccak256(raw))
      return broadcasts.send(raw, nonce)
    },

    prepareReplacement: makeReplacementSigner(signer, fees, chainId),

    fillNonceGaps: gapFiller.fillNonceGaps,

    minedNonce: (of) =>
      tryRpc('reading an account nonce', async () => {
        const mined = await readQuantity(rpc, 'eth_getTransactionCount', [of, 'latest'])
        if (of.toLowerCase() === account) nonces.observeMined(mined)
        return mined
      }),
  }
}
