import type {
  Address,
  ChainUnavailable,
  Hex,
  PreparedTransfer,
  Replacement,
  SendOutcome,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { parseTransaction } from 'viem'
import { makeBroadcastQueue, sendFailure } from './broadcast-queue.js'
import { makeFeeOracle } from './fee-oracle.js'
import { lowerCase } from './hex-bytes.js'
import { makeNonceAllocator } from './nonce-allocator.js'
import { makeNonceGapFiller } from './nonce-gap-filler.js'
import { makeReceiptWatcher } from './receipt-watcher.js'
import { readQuantity, rightOrThrow, tryRpc } from './rpc-failure.js'
import { makeSettlerBatches } from './settler-batch.js'
import { singleFlight } from './single-flight.js'
import { makeReceiptModeProbe, makeSyncSend } from './sync-send.js'
import { makeSecp256k1TransactionSigner } from './transaction-signer.js'
import {
  CANONICAL_MULTICALL3_ADDRESS,
  makePayerHasCode,
  transferCall,
  type TransferAddresses,
} from './transfer-call.js'
import {
  contractPayerGasLimit,
  MULTICALL3_SETTLE_GAS_LIMIT,
  replacementGasLimit,
  transferGasLimit,
  type GasLimits,
} from './transfer-gas-limit.js'
import { toTransferReceipt } from './transfer-receipt.js'
import type { RpcTransferSubmitter, RpcTransferSubmitterOptions } from './transfer-submitter-options.js'

export type { RpcTransferSubmitter, RpcTransferSubmitterOptions } from './transfer-submitter-options.js'

export const makeRpcTransferSubmitter = (options: RpcTransferSubmitterOptions): RpcTransferSubmitter => {
  const { rpc } = options
  const token = lowerCase(options.token)
  const gasLimits: GasLimits = { fallback: options.gasLimit ?? 120_000n, cap: options.maxGasLimit ?? 1_300_000n }
  const addresses: TransferAddresses = {
    token,
    multicall3: lowerCase(options.multicall3 ?? CANONICAL_MULTICALL3_ADDRESS),
    allowedFactories: (options.erc6492Factories ?? []).map(lowerCase),
  }
  const signer = makeSecp256k1TransactionSigner(options.privateKey)
  const account = signer.address
  const fees = makeFeeOracle(rpc, { maxFeePerGas: options.maxFeePerGas, cacheMs: options.feeCacheMs })
  const nonces = makeNonceAllocator(() => readQuantity(rpc, 'eth_getTransactionCount', [account, 'pending']))
  const settler = options.settler === undefined ? undefined : lowerCase(options.settler)
  const toReceipt = (receipt: unknown) =>
    toTransferReceipt(rpc, receipt, { token, onUnbackedSuccess: options.onUnbackedSuccess })
  const watcher = makeReceiptWatcher({ rpc, account, toReceipt, onMinedNonce: nonces.observeMined })
  // A nonce given back below one the broadcast queue sends afterwards is filled once that one is booked
  // (nonce-gap-filler.ts).
  const broadcasts = makeBroadcastQueue({ rpc, nonces, onBooked: () => void gapFiller.fillReturnedGaps() })
  const receiptMode = makeReceiptModeProbe(rpc, options.receiptMode)

  const chainId = singleFlight<ChainUnavailable, number>(
    options.chainId !== undefined
      ? TE.right(options.chainId)
      : tryRpc('reading the chain id', async () => Number(await readQuantity(rpc, 'eth_chainId'))),
  )
  const gapFiller = makeNonceGapFiller({ rpc, signer, nonces, fees, broadcasts, chainId })

  const payerHasCode = makePayerHasCode(rpc)
  const mined = async (receipt: unknown): Promise<SendOutcome> => ({ _tag: 'Mined', receipt: await toReceipt(receipt) })

  /** Signs a call at the next account nonce; fees before the nonce, and a failure gives the nonce back. */
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

  const watch = async (prepared: PreparedTransfer, deadline: number): Promise<SendOutcome> => {
    const receipt = await watcher.wait(
      prepared.txHash,
      prepared.accountNonce,
      deadline - performance.now(),
      prepared.raw,
    )
    return receipt ? { _tag: 'Mined', receipt } : { _tag: 'Unconfirmed' }
  }

  const sendSync = makeSyncSend({ rpc, nonces, mined, watch })

  return {
    address: account,
    receiptMode,

    prepare: (authorization, signature, executionGas, contractPayer) =>
      tryRpc('preparing the settlement transaction', async () => {
        const call = transferCall(authorization, signature, addresses, await payerHasCode(authorization, signature))
        const limits = call.viaMulticall3 ? { ...gasLimits, fallback: MULTICALL3_SETTLE_GAS_LIMIT } : gasLimits
        const gas =
          contractPayer === undefined
            ? transferGasLimit(call.data, executionGas, limits)
            : contractPayerGasLimit(call.data, contractPayer.trialGasCap, executionGas, limits)
        return signNext(call.to, call.data, gas)
      }),

    ...(settler === undefined
      ? {}
      : makeSettlerBatches({
          rpc,
          settler,
          itemGasLimit: options.settlerItemGasLimit,
          bounds: options.batchBounds,
          signNext,
        })),

    abandon: (prepared) => async () => {
      nonces.setAside(prepared.accountNonce)
      broadcasts.wake()
    },

    discard: (prepared) => async () => {
      nonces.release(prepared.accountNonce)
      broadcasts.wake()
      await gapFiller.fillReturnedGaps()
    },

    send: (prepared, waitMs) => async () => {
      const deadline = performance.now() + waitMs
      if ((await receiptMode()) === 'sync') return sendSync(prepared, waitMs, deadline)
      const sent = await broadcasts.send(prepared.raw, prepared.accountNonce)
      if (E.isLeft(sent)) return sent
      return E.right(await watch(prepared, deadline))
    },

    waitForReceipt: (prepared, waitMs) => async () =>
      O.fromNullable(await watcher.wait(prepared.txHash, prepared.accountNonce, waitMs, prepared.raw)),

    receiptOf: (hashes) =>
      tryRpc('reading receipts', async () => {
        const receipts = await Promise.all(hashes.map((hash) => rpc.read('eth_getTransactionReceipt', [hash])))
        const found = receipts.find((receipt) => receipt !== null)
        return found ? O.some(await toReceipt(found)) : O.none
      }),

    rebroadcast: (raw, sender) => async () => {
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
      return broadcasts.send(raw, nonce)
    },

    prepareReplacement: (previous) =>
      tryRpc('preparing a replacement transaction', async (): Promise<Replacement> => {
        // The very call of the attempt it replaces (the same payments of a batch, the same route), at higher fees.
        const { to, data, gas } = parseTransaction(previous.raw)
        if (to == null || data === undefined) throw new Error('the stored transaction does not parse as a call')
        const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.replacing(previous)])
        if (txFees === undefined) return { _tag: 'AtFeeCap' }
        const { raw, hash } = signer.sign({
          chainId: id,
          nonce: Number(previous.accountNonce),
          to: lowerCase(to),
          data,
          gas: gas ?? replacementGasLimit(previous.raw, gasLimits),
          ...txFees,
        })
        return { _tag: 'Prepared', transfer: { txHash: hash, raw, accountNonce: previous.accountNonce, ...txFees } }
      }),

    fillNonceGaps: gapFiller.fillNonceGaps,

    minedNonce: (of) =>
      tryRpc('reading an account nonce', async () => {
        const mined = await readQuantity(rpc, 'eth_getTransactionCount', [of, 'latest'])
        if (of.toLowerCase() === account) nonces.observeMined(mined)
        return mined
      }),
  }
}
