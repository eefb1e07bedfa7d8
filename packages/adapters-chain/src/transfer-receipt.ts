import type { Hex, TransferReceipt } from '@x402-facilitator/domain'
import { decodeErrorResult } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { demoUsdAbi } from './generated/demo-usd.js'
import { classifyRpcError } from './rpc-failure.js'

/** A receipt as JSON-RPC returns it (the fields used here). */
export interface RpcReceipt {
  readonly transactionHash: Hex
  readonly blockNumber: Hex
  readonly gasUsed: Hex
  readonly status: Hex
}

interface RpcTransaction {
  readonly from: Hex
  readonly to: Hex | null
  readonly input: Hex
  readonly gas: Hex
}

const reasonOfRevertData = (data: unknown): string | undefined => {
  if (typeof data !== 'string' || data.length < 10) return undefined
  try {
    const decoded = decodeErrorResult({ abi: demoUsdAbi, data: data as Hex })
    return decoded.args && decoded.args.length > 0 ? `${decoded.errorName}: ${decoded.args.map(String).join(', ')}` : decoded.errorName
  } catch {
    return undefined
  }
}

/**
 * Why a mined transaction reverted: receipts do not say, so the call is replayed on the state of its block.
 * Best effort, one call, only for reverted receipts.
 */
const revertReason = async (rpc: ChainRpc, receipt: RpcReceipt): Promise<string | undefined> => {
  try {
    const tx = (await rpc.read('eth_getTransactionByHash', [receipt.transactionHash])) as RpcTransaction | null
    if (!tx) return undefined
    if (tx.gas === receipt.gasUsed) return 'out of gas'
    await rpc.read('eth_call', [{ from: tx.from, to: tx.to, data: tx.input, gas: tx.gas }, receipt.blockNumber])
    return undefined
  } catch (error) {
    const failure = classifyRpcError(error)
    if (failure.kind !== 'answered') return undefined
    const decoded = reasonOfRevertData(failure.data)
    if (decoded) return decoded.replace(/^Error: /, '')
    return failure.message.replace(/^execution reverted:?\s*/, '') || undefined
  }
}

/** The domain's receipt; a reverted one is still mined, with `succeeded: false` and the reason when it can be found. */
export const toTransferReceipt = async (rpc: ChainRpc, receipt: RpcReceipt): Promise<TransferReceipt> => {
  const base = {
    txHash: receipt.transactionHash.toLowerCase() as Hex,
    blockNumber: BigInt(receipt.blockNumber),
    gasUsed: BigInt(receipt.gasUsed),
  }
  if (receipt.status === '0x1') return { ...base, succeeded: true }
  const reason = await revertReason(rpc, receipt)
  return reason === undefined ? { ...base, succeeded: false } : { ...base, succeeded: false, revertReason: reason }
}
