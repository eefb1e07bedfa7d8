import { anvilRpc } from './chain-control.js'

/**
 * A reorg on anvil: `evm_revert` to a snapshot taken before, then three `evm_mine`, so the new chain is longer than the
 * one it replaces and every block since the snapshot has another hash. Answers the new head.
 */
export const reorgTo = async (rpcUrl: string, snapshot: unknown, blocks = 3): Promise<bigint> => {
  if ((await anvilRpc(rpcUrl, 'evm_revert', [snapshot])) !== true) throw new Error('evm_revert refused the snapshot')
  for (let i = 0; i < blocks; i++) await anvilRpc(rpcUrl, 'evm_mine')
  return BigInt((await anvilRpc(rpcUrl, 'eth_blockNumber')) as string)
}

export const snapshot = (rpcUrl: string): Promise<unknown> => anvilRpc(rpcUrl, 'evm_snapshot')

export interface ChainReceipt {
  readonly status: string
  readonly blockNumber: string
  readonly blockHash: string
}

/** The receipt of `txHash` on the chain now, and whether its block is the chain's block at that height. */
export const canonicalReceipt = async (rpcUrl: string, txHash: string): Promise<ChainReceipt | undefined> => {
  const receipt = (await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [txHash])) as ChainReceipt | null
  if (receipt === null) return undefined
  const block = (await anvilRpc(rpcUrl, 'eth_getBlockByNumber', [receipt.blockNumber, false])) as {
    hash: string
  } | null
  return block?.hash === receipt.blockHash ? receipt : undefined
}

/** `facilitator_finality_violations_total` from `/metrics`, summed over its networks. */
export const finalityViolations = async (base: string): Promise<number> => {
  const metrics = await (await fetch(`${new URL(base).origin}/metrics`)).text()
  if (!metrics.includes('# TYPE facilitator_finality_violations_total counter'))
    throw new Error('no facilitator_finality_violations_total in /metrics')
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('facilitator_finality_violations_total{'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0)
}
