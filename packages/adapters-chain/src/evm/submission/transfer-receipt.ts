import { CANONICAL_PERMIT2_CONTRACTS, HexBytes, type Hex, type TransferReceipt } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { decodeErrorResult, numberToHex } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { eip3009TokenAbi } from '../token/eip3009-token-abi.js'
import { decodeNodeReceipt, type NodeReceipt } from './node-receipt.js'
import { decodePermit2Call } from '../permit2/permit2-call.js'
import { permit2ErrorReason } from '../permit2/permit2-reader.js'
import {
  itemOutcomesOf,
  tokenBackedOutcomes,
  unbackedLoneSuccess,
  unbackedPermit2Success,
  type TokenLogsCheck,
} from './receipt-logs.js'
import { classifyRpcError, fieldOf } from '../rpc/rpc-failure.js'

/** The token's message in revert data (`Error(string)` or one of its custom errors). */
export const reasonOfRevertData = (data: unknown): string | undefined => {
  const hex = HexBytes.decode(data)
  if (E.isLeft(hex) || hex.right.length < 10) return undefined
  try {
    const decoded = decodeErrorResult({ abi: eip3009TokenAbi, data: hex.right })
    if (decoded.errorName === 'Error' && decoded.args?.length === 1) return String(decoded.args[0])
    return decoded.args && decoded.args.length > 0
      ? `${decoded.errorName}: ${decoded.args.map(String).join(', ')}`
      : decoded.errorName
  } catch {
    return undefined
  }
}

/**
 * Why a mined transaction reverted: receipts do not say, so the call is replayed on the state of its block.
 * Best effort, one call, only for reverted receipts.
 */
const revertReason = async (rpc: ChainRpc, receipt: NodeReceipt): Promise<string | undefined> => {
  try {
    const tx = await rpc.read('eth_getTransactionByHash', [receipt.txHash])
    if (!tx) return undefined
    // The transaction's fields go back to the node as it wrote them.
    const gas = fieldOf(tx, 'gas')
    if (typeof gas === 'string' && BigInt(gas) === receipt.gasUsed) return 'out of gas'
    await rpc.read('eth_call', [
      { from: fieldOf(tx, 'from'), to: fieldOf(tx, 'to'), data: fieldOf(tx, 'input'), gas },
      numberToHex(receipt.blockNumber),
    ])
    return undefined
  } catch (error) {
    const failure = classifyRpcError(error)
    if (failure.kind !== 'answered') return undefined
    // The token's message first; a Permit2 settle's revert is the proxy's or Permit2's custom error.
    const decoded = reasonOfRevertData(failure.data) ?? permit2ErrorReason(failure.data)
    if (decoded) return decoded.replace(/^Error: /, '')
    return failure.message.replace(/^execution reverted:?\s*/, '') || undefined
  }
}

const CANONICAL_PROXIES = [CANONICAL_PERMIT2_CONTRACTS.exactProxy, CANONICAL_PERMIT2_CONTRACTS.uptoProxy]

/** What a Permit2 proxy call was sent to move: its input, read back from the node (a receipt has none). */
const expectedTransfer = async (rpc: ChainRpc, txHash: Hex) => {
  const input = fieldOf(await rpc.read('eth_getTransactionByHash', [txHash]), 'input')
  return typeof input === 'string' && input.startsWith('0x') ? decodePermit2Call(input as Hex) : undefined
}

/**
 * The domain's receipt of a JSON-RPC receipt (`eth_getTransactionReceipt`, an EIP-7966 sync send), decoded once
 * (node-receipt.ts); a reverted one is still mined, with `succeeded: false` and the reason when it can be found. A
 * payment counts as paid only with the configured token's `AuthorizationUsed` in the receipt (receipt-logs.ts): a batch
 * item the settler reports settled without it fails, and so does a lone transaction that succeeded without it. A lone
 * transaction to a Permit2 proxy is paid only with the token's `Transfer(owner, payee, amount)` its input asked for.
 */
export const toTransferReceipt = async (
  rpc: ChainRpc,
  answer: unknown,
  check: TokenLogsCheck,
): Promise<TransferReceipt> => {
  const receipt = decodeNodeReceipt(answer)
  const { txHash, blockNumber, blockHash, gasUsed, to, logs } = receipt
  const tx = { txHash, blockNumber, blockHash, gasUsed }
  // A settler batch's receipt says what became of each payment (docs/ARCHITECTURE.md §5.7): read from the events of
  // the contract the transaction called, whichever settler it was (the one configured may have changed since), each
  // success backed by the token's own log.
  const items =
    to === undefined ? [] : tokenBackedOutcomes(logs, to, itemOutcomesOf(logs, to, reasonOfRevertData), txHash, check)
  const base = items.length > 0 ? { ...tx, items } : tx
  if (receipt.succeeded) {
    const unbacked =
      items.length > 0
        ? undefined
        : to !== undefined && (check.permit2Proxies ?? CANONICAL_PROXIES).includes(to)
          ? unbackedPermit2Success(logs, await expectedTransfer(rpc, txHash), txHash, check)
          : unbackedLoneSuccess(logs, to, txHash, check)
    return unbacked === undefined ? { ...base, succeeded: true } : { ...base, succeeded: false, revertReason: unbacked }
  }
  const reason = await revertReason(rpc, receipt)
  return reason === undefined ? { ...base, succeeded: false } : { ...base, succeeded: false, revertReason: reason }
}
