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
  const nonce = async (block: 'pending' | 'latest') => BigInt((await anvilRpc(rpcUrl, 'eth_getTransactionCount', [account, block])) as string)
  return (await nonce('pending')) > (await nonce('latest'))
}

export const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

export const receiptOf = async (rpcUrl: string, txHash: string) =>
  (await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [txHash])) as { status: string; blockNumber: string } | null

/** A row whose transfer is on the chain: `confirmed`, or `final` once the finality watcher saw its block deep enough. */
export const SETTLED_STATES: ReadonlyArray<string> = ['confirmed', 'final']
export const isSettled = (state: unknown): boolean => typeof state === 'string' && SETTLED_STATES.includes(state)
