/** JSON-RPC to anvil for what the tests do behind the service's back (mining, dropping, pausing). */
export const anvilRpc = async (rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> => {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/** Whether `account` has a transaction in the node's pool: sent, not yet mined. */
export const hasPendingTransaction = async (rpcUrl: string, account: string): Promise<boolean> => {
  const nonce = async (block: 'pending' | 'latest') =>
    BigInt((await anvilRpc(rpcUrl, 'eth_getTransactionCount', [account, block])) as string)
  return (await nonce('pending')) > (await nonce('latest'))
}

export const receiptOf = async (rpcUrl: string, txHash: string) =>
  (await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [txHash])) as { status: string; blockNumber: string } | null

/**
 * A row whose transfer is on the chain: `confirmed`, or `final` once the finality watcher saw its block deep enough.
 */
export const SETTLED_STATES: ReadonlyArray<string> = ['confirmed', 'final']
export const isSettled = (state: unknown): boolean => typeof state === 'string' && SETTLED_STATES.includes(state)

/** The facilitator's transactions waiting in anvil's pool (sent, not mined), with where they go and their calldata. */
export const pooledFrom = async (
  rpcUrl: string,
  account: string,
): Promise<Array<{ hash: `0x${string}`; to: string; input: `0x${string}` }>> => {
  type Pooled = { hash: `0x${string}`; to: string; input: `0x${string}` }
  const pool = (await anvilRpc(rpcUrl, 'txpool_content', [])) as { pending: Record<string, Record<string, Pooled>> }
  const ours = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === account.toLowerCase())
  return ours ? Object.values(ours[1]) : []
}

/**
 * Short bounds for the fault tests: a fault is answered within a second, recovery runs often, replacements come soon.
 */
export const FAULT_TIMINGS = {
  RPC_TIMEOUT_MS: '1000',
  DB_TIMEOUT_MS: '1000',
  RECOVERY_INTERVAL_MS: '300',
  REPLACE_AFTER_MS: '4000',
  // Recovery leaves a row to its settle while that settle may still wait for the receipt: keep the wait short.
  RECEIPT_TIMEOUT_SECONDS: '2',
}

/** After a fault test: the node runs and mines every transaction again. */
export const chainBackToNormal = async (chain: {
  readonly rpcUrl: string
  readonly resume: () => void
}): Promise<void> => {
  try {
    chain.resume()
  } catch {
    // already running
  }
  await anvilRpc(chain.rpcUrl, 'evm_setAutomine', [true])
}
