import type {
  Address,
  Authorization,
  ChainUnavailable,
  Hex,
  PreparedTransfer,
  SendFailure,
  SendOutcome,
  TransferSubmitter,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { parseTransaction } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { makeFeeOracle, type Fees } from './fee-oracle.js'
import { makeNonceAllocator } from './nonce-allocator.js'
import { makeReceiptWatcher } from './receipt-watcher.js'
import { classifyRpcError, describeRpcFailure, rightOrThrow, tryRpc } from './rpc-failure.js'
import { singleFlight } from './single-flight.js'
import { transferCallData } from './transfer-call-data.js'
import { makeSecp256k1TransactionSigner } from './transaction-signer.js'
import { toTransferReceipt, type RpcReceipt } from './transfer-receipt.js'

export type ReceiptMode = 'watcher' | 'sync'

export interface ViemTransferSubmitterOptions {
  readonly rpc: ChainRpc
  /** The EIP-3009 token the transfers call. */
  readonly token: Address
  /** The facilitator key: signs every transaction and pays the gas. */
  readonly privateKey: Hex
  /** Unset: asked from the node once. */
  readonly chainId?: number
  /**
   * How `send` learns the receipt: `watcher` (one poller for all transactions in flight), or `sync` (EIP-7966
   * `eth_sendRawTransactionSync`, which answers with the receipt; falls back to `watcher` when the node lacks it).
   * Measured on anvil at concurrency 32, the watcher keeps its rate for thousands of transactions where sync sends
   * fall off, hence the default [`watcher`].
   */
  readonly receiptMode?: ReceiptMode
  /** Fee cap (wei per gas); unset: three times the node's first estimate. */
  readonly maxFeePerGas?: bigint
  /** Gas limit of every transfer: a constant instead of an estimate per settle [120 000; one uses ≈ 60–85 000]. */
  readonly gasLimit?: bigint
  /** How long one fee estimate serves [2 000 ms]. */
  readonly feeCacheMs?: number
}

export interface ViemTransferSubmitter extends TransferSubmitter {
  /** The facilitator address (lower-case). */
  readonly address: Address
  /** The receipt mode in effect, once detected (`sync` turns `watcher` on a node without EIP-7966). */
  readonly receiptMode: () => Promise<ReceiptMode>
}

const NONCE_TROUBLE = /nonce too (low|high)|invalid nonce|nonce has already been used|replacement transaction underpriced|already imported with a different/i
const ALREADY_KNOWN = /already known|known transaction|already imported|already exists|already in (the )?(mem)?pool/i
/** EIP-7966: the transaction is in the pool, but no receipt came within the timeout. */
const SYNC_TIMEOUT_CODE = 4

const sendFailure = (error: unknown): SendFailure | 'already known' => {
  const failure = classifyRpcError(error)
  switch (failure.kind) {
    case 'answered':
      return ALREADY_KNOWN.test(failure.message) ? 'already known' : { _tag: 'SendRejected', reason: failure.message }
    case 'unreachable':
      // The request reached no node: nothing was broadcast, so it is as final as a refusal.
      return { _tag: 'SendRejected', reason: failure.message }
    case 'timeout':
    case 'transport':
      return { _tag: 'SendUncertain', reason: describeRpcFailure(failure) }
  }
}

export const makeViemTransferSubmitter = (options: ViemTransferSubmitterOptions): ViemTransferSubmitter => {
  const { rpc } = options
  const token = options.token.toLowerCase() as Address
  const gasLimit = options.gasLimit ?? 120_000n
  const signer = makeSecp256k1TransactionSigner(options.privateKey)
  const account = signer.address
  const fees = makeFeeOracle(rpc, {
    ...(options.maxFeePerGas !== undefined ? { maxFeePerGas: options.maxFeePerGas } : {}),
    ...(options.feeCacheMs !== undefined ? { cacheMs: options.feeCacheMs } : {}),
  })
  const nonces = makeNonceAllocator(async () => BigInt((await rpc.read('eth_getTransactionCount', [account, 'pending'])) as Hex))
  const watcher = makeReceiptWatcher({ rpc, account, onMinedNonce: nonces.observeMined })

  const chainId = singleFlight<ChainUnavailable, number>(
    options.chainId !== undefined
      ? TE.right(options.chainId)
      : tryRpc('reading the chain id', async () => Number(BigInt((await rpc.read('eth_chainId')) as Hex))),
  )

  let detectedMode: Promise<ReceiptMode> | undefined
  const receiptMode = (): Promise<ReceiptMode> => {
    if (options.receiptMode !== 'sync') return Promise.resolve('watcher')
    // Asked once with an empty transaction: a node that knows the method complains about the transaction instead.
    return (detectedMode ??= rpc.write('eth_sendRawTransactionSync', ['0x']).then(
      (): ReceiptMode => 'sync',
      (error): ReceiptMode => {
        const failure = classifyRpcError(error)
        if (failure.kind !== 'answered') {
          detectedMode = undefined
          return 'watcher'
        }
        return failure.code === -32601 || /not (found|supported|available)|does not exist|unknown method/i.test(failure.message)
          ? 'watcher'
          : 'sync'
      },
    ))
  }

  const sign = (authorization: Authorization, signature: Hex, nonce: bigint, txFees: Fees, id: number): PreparedTransfer => {
    const { raw, hash } = signer.sign({
      chainId: id,
      nonce: Number(nonce),
      to: token,
      data: transferCallData(authorization, signature),
      gas: gasLimit,
      ...txFees,
    })
    return { txHash: hash, raw, accountNonce: nonce, ...txFees }
  }

  const settleBroadcast = (nonce: bigint, error: unknown | undefined): E.Either<SendFailure, void> => {
    if (error !== undefined) {
      const failure = sendFailure(error)
      if (failure !== 'already known') {
        if (failure._tag === 'SendRejected' && NONCE_TROUBLE.test(failure.reason)) nonces.resync()
        if (failure._tag === 'SendUncertain') nonces.markBroadcast(nonce)
        return E.left(failure)
      }
    }
    nonces.markBroadcast(nonce)
    return E.right(undefined)
  }

  /**
   * One send lane: a single broadcast request in flight at a time, carrying the transactions waiting meanwhile as one
   * JSON-RPC batch in account-nonce order; a transaction whose nonce is above one still being prepared (handed out,
   * not yet broadcast nor released: its journal write is in flight) waits for it, up to `MAX_HOLD_MS`. Concurrent single
   * sends reach the node out of nonce order, and anvil then sometimes parks a transaction in its queued pool for good
   * (bench/anvil-send-order.mjs: 2 of 8 runs of 600 shuffled sends): every later settle then waited for the replacement
   * recovery signs 15 s later.
   */
  interface Outgoing {
    readonly raw: Hex
    readonly nonce: bigint
    readonly since: number
    readonly done: (result: E.Either<SendFailure, void>) => void
  }
  const MAX_HOLD_MS = 50
  let lane: Outgoing[] = []
  let sending = false
  let retry: ReturnType<typeof setTimeout> | undefined
  const pump = (): void => {
    if (sending || lane.length === 0) return
    lane.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0))
    const queued = new Set(lane.map((o) => o.nonce))
    const gap = nonces.lowestPrepared((nonce) => queued.has(nonce))
    const now = performance.now()
    const overdue = lane.some((o) => now - o.since >= MAX_HOLD_MS)
    const batch = gap === undefined || overdue ? lane : lane.filter((o) => o.nonce < gap)
    if (batch.length === 0) {
      // Everything waits for a lower nonce still being prepared: look again shortly (its broadcast also wakes us).
      retry ??= setTimeout(() => {
        retry = undefined
        pump()
      }, 2)
      return
    }
    lane = batch === lane ? [] : lane.filter((o) => o.nonce >= gap!)
    sending = true
    rpc
      .writeBatch(batch.map((o) => ({ method: 'eth_sendRawTransaction', params: [o.raw] })))
      .then(
        (outcomes) => batch.forEach((o, k) => o.done(settleBroadcast(o.nonce, outcomes[k]!.ok ? undefined : (outcomes[k] as { error: unknown }).error))),
        (error: unknown) => batch.forEach((o) => o.done(settleBroadcast(o.nonce, error ?? new Error('broadcast failed')))),
      )
      .finally(() => {
        sending = false
        pump()
      })
  }
  const broadcast = (raw: Hex, nonce: bigint): Promise<E.Either<SendFailure, void>> =>
    new Promise((done) => {
      lane.push({ raw, nonce, since: performance.now(), done })
      // Sends prepared in this turn of the event loop go together.
      if (!sending) setImmediate(pump)
    })

  const mined = async (receipt: RpcReceipt): Promise<SendOutcome> => ({ _tag: 'Mined', receipt: await toTransferReceipt(rpc, receipt) })

  const watch = async (prepared: PreparedTransfer, deadline: number): Promise<SendOutcome> => {
    const receipt = await watcher.wait(prepared.txHash, prepared.accountNonce, deadline - performance.now())
    return receipt ? { _tag: 'Mined', receipt } : { _tag: 'Unconfirmed' }
  }

  /** The node may or may not have taken the transaction: ask it (one call) whether it knows the hash. */
  const knows = async (hash: Hex): Promise<boolean> => {
    try {
      return (await rpc.read('eth_getTransactionByHash', [hash])) !== null
    } catch {
      return false
    }
  }

  const sendSync = async (prepared: PreparedTransfer, waitMs: number, deadline: number): Promise<E.Either<SendFailure, SendOutcome>> => {
    try {
      // EIP-7966 lets a second parameter set the node's wait; anvil refuses it, so the HTTP bound is the wait.
      const receipt = (await rpc.callWithTimeout('eth_sendRawTransactionSync', [prepared.raw], Math.max(1, waitMs))) as RpcReceipt
      nonces.markBroadcast(prepared.accountNonce)
      return E.right(await mined(receipt))
    } catch (error) {
      const failure = classifyRpcError(error)
      const inPool =
        (failure.kind === 'answered' && failure.code === SYNC_TIMEOUT_CODE) ||
        (failure.kind === 'timeout' && (await knows(prepared.txHash)))
      if (inPool) {
        nonces.markBroadcast(prepared.accountNonce)
        return E.right({ _tag: 'Unconfirmed' })
      }
      const outcome = sendFailure(error)
      if (outcome === 'already known') {
        nonces.markBroadcast(prepared.accountNonce)
        return E.right(await watch(prepared, deadline))
      }
      if (outcome._tag === 'SendRejected' && NONCE_TROUBLE.test(outcome.reason)) nonces.resync()
      if (outcome._tag === 'SendUncertain') nonces.markBroadcast(prepared.accountNonce)
      return E.left(outcome)
    }
  }

  return {
    address: account,
    receiptMode,

    prepare: (authorization, signature) =>
      tryRpc('preparing the settlement transaction', async () => {
        // Fees before the nonce: a failure here must not leave a nonce handed out.
        const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.current()])
        const nonce = await nonces.allocate()
        try {
          return sign(authorization, signature, nonce, txFees, id)
        } catch (error) {
          nonces.release(nonce)
          throw error
        }
      }),

    discard: (prepared) => async () => {
      nonces.release(prepared.accountNonce)
      pump()
    },

    send: (prepared, waitMs) => async () => {
      const deadline = performance.now() + waitMs
      if ((await receiptMode()) === 'sync') return sendSync(prepared, waitMs, deadline)
      const sent = await broadcast(prepared.raw, prepared.accountNonce)
      if (E.isLeft(sent)) return sent
      return E.right(await watch(prepared, deadline))
    },

    receiptOf: (hashes) =>
      tryRpc('reading receipts', async () => {
        const receipts = (await Promise.all(hashes.map((hash) => rpc.read('eth_getTransactionReceipt', [hash])))) as Array<RpcReceipt | null>
        const found = receipts.find((receipt): receipt is RpcReceipt => receipt !== null)
        return found ? O.some(await toTransferReceipt(rpc, found)) : O.none
      }),

    rebroadcast: (raw) => async () => {
      let nonce: bigint
      try {
        nonce = BigInt(parseTransaction(raw).nonce ?? 0)
      } catch {
        return E.left({ _tag: 'SendRejected', reason: 'the stored transaction does not parse' })
      }
      return broadcast(raw, nonce)
    },

    prepareReplacement: (authorization, signature, previous) =>
      tryRpc('preparing a replacement transaction', async () => {
        const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.replacing(previous)])
        return sign(authorization, signature, previous.accountNonce, txFees, id)
      }),

    minedNonce: (of) =>
      tryRpc('reading an account nonce', async () => {
        const mined = BigInt((await rpc.read('eth_getTransactionCount', [of, 'latest'])) as Hex)
        if (of.toLowerCase() === account) nonces.observeMined(mined)
        return mined
      }),
  }
}
