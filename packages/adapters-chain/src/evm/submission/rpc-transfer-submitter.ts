import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import { lowerCase } from '../hex-bytes.js'
import { tryRpc } from '../rpc/rpc-failure.js'
import { makeSettlerBatches } from '../settler/settler-batch.js'
import { makeSigningKeyCore, type SigningKeyCore } from './signing-key-core.js'
import {
  CANONICAL_MULTICALL3_ADDRESS,
  makePayerHasCode,
  transferCall,
  type TransferAddresses,
} from '../token/transfer-call.js'
import {
  contractPayerGasLimit,
  MULTICALL3_SETTLE_GAS_LIMIT,
  PERMIT2_SETTLE_GAS_LIMIT,
  transferGasLimit,
  type GasLimits,
} from './transfer-gas-limit.js'
import { toTransferReceipt } from './transfer-receipt.js'
import type {
  RpcTransferSubmitter,
  RpcTransferSubmitterOptions,
  TokenSubmitterOptions,
} from './transfer-submitter-options.js'

export type {
  RpcTransferSubmitter,
  RpcTransferSubmitterOptions,
  SigningKeyOptions,
  TokenSubmitterOptions,
} from './transfer-submitter-options.js'

/**
 * One token's submitter over a signing key's core (signing-key-core.ts, docs/ARCHITECTURE.md §5.8): it builds that
 * token's calls (`transferWithAuthorization` to the token, its settler's batches) and judges receipts by that token's
 * logs; nonces, broadcasts, receipt watching, fees and gap filling are the core's, shared by every token of the key.
 */
export const makeTokenTransferSubmitter = (
  core: SigningKeyCore,
  options: TokenSubmitterOptions,
): RpcTransferSubmitter => {
  const { rpc } = core
  const token = lowerCase(options.token)
  const gasLimits: GasLimits = { fallback: options.gasLimit ?? 120_000n, cap: options.maxGasLimit ?? 1_300_000n }
  const addresses: TransferAddresses = {
    token,
    multicall3: lowerCase(options.multicall3 ?? CANONICAL_MULTICALL3_ADDRESS),
    allowedFactories: (options.erc6492Factories ?? []).map(lowerCase),
  }
  const settler = options.settler === undefined ? undefined : lowerCase(options.settler)
  const permit2 = options.permit2 ?? CANONICAL_PERMIT2_CONTRACTS
  // Receipts of upto payments sent before the proxy was configured `none` are still read as Permit2 payments.
  const uptoProxy = permit2.uptoProxy ?? CANONICAL_PERMIT2_CONTRACTS.uptoProxy
  const permit2Proxies = [permit2.exactProxy, uptoProxy].map(lowerCase)
  const toReceipt = (receipt: unknown) =>
    toTransferReceipt(rpc, receipt, { token, onUnbackedSuccess: options.onUnbackedSuccess, permit2Proxies })
  const payerHasCode = makePayerHasCode(rpc)

  return {
    address: core.account,
    receiptMode: core.receiptMode,

    prepare: (authorization, signature, executionGas, contractPayer) =>
      tryRpc('preparing the settlement transaction', async () => {
        const call = transferCall(authorization, signature, addresses, await payerHasCode(authorization, signature))
        const limits = call.viaMulticall3
          ? { ...gasLimits, fallback: MULTICALL3_SETTLE_GAS_LIMIT }
          : authorization.permit2 !== undefined && gasLimits.fallback < PERMIT2_SETTLE_GAS_LIMIT
            ? { ...gasLimits, fallback: PERMIT2_SETTLE_GAS_LIMIT }
            : gasLimits
        const gas =
          contractPayer === undefined
            ? transferGasLimit(call.data, executionGas, limits)
            : contractPayerGasLimit(call.data, contractPayer.trialGasCap, executionGas, limits)
        return core.signNext(call.to, call.data, gas)
      }),

    ...(settler === undefined
      ? {}
      : makeSettlerBatches({
          rpc,
          settler,
          itemGasLimit: options.settlerItemGasLimit,
          bounds: options.batchBounds,
          signNext: core.signNext,
        })),

    send: (prepared, waitMs) => core.send(prepared, waitMs, toReceipt),
    waitForReceipt: (prepared, waitMs) => core.waitForReceipt(prepared, waitMs, toReceipt),

    receiptOf: (hashes) =>
      tryRpc('reading receipts', async () => {
        const receipts = await Promise.all(hashes.map((hash) => rpc.read('eth_getTransactionReceipt', [hash])))
        const found = receipts.find((receipt) => receipt !== null)
        return found ? O.some(await toReceipt(found)) : O.none
      }),

    heldByNode: (hashes) =>
      tryRpc('looking transactions up', async () => {
        const held = await Promise.all(hashes.map((hash) => rpc.read('eth_getTransactionByHash', [hash])))
        return held.some((transaction) => transaction !== null)
      }),

    prepareReplacement: (previous) => core.prepareReplacement(previous, gasLimits),
    abandon: core.abandon,
    discard: core.discard,
    rebroadcast: core.rebroadcast,
    onStalled: core.onStalled,
    fillNonceGaps: core.fillNonceGaps,
    minedNonce: core.minedNonce,
  }
}

/** A submitter with a key of its own: one token over a core of its own (tests, tools; `makeChain` shares cores). */
export const makeRpcTransferSubmitter = (options: RpcTransferSubmitterOptions): RpcTransferSubmitter =>
  makeTokenTransferSubmitter(makeSigningKeyCore(options), options)
