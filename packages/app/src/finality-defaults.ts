/**
 * `CONFIRMATIONS` when unset, by chain id (docs/ARCHITECTURE.md §5.6, docs/CONFIGURATION.md, "`CONFIRMATIONS` by
 * chain"): how many blocks on top of a settlement's own make it final. Chains with single-slot finality need 1;
 * Ethereum's finalized checkpoint is two epochs (64 blocks); Polygon PoS has seen reorgs tens of blocks deep; OP-stack
 * and Arbitrum unsafe heads reorg shallowly (their L1 finality is a separate, longer wait that no block count here
 * expresses).
 */
const CONFIRMATIONS_BY_CHAIN: ReadonlyMap<number, number> = new Map([
  [1, 64], // Ethereum
  [11155111, 64], // Sepolia
  [137, 64], // Polygon PoS
  [80002, 64], // Polygon Amoy
  [8453, 10], // Base
  [84532, 10], // Base Sepolia
  [10, 10], // OP Mainnet
  [11155420, 10], // OP Sepolia
  [42161, 20], // Arbitrum One (0.25 s blocks)
  [421614, 20], // Arbitrum Sepolia
  [43114, 1], // Avalanche C-Chain (single-slot finality)
  [43113, 1], // Avalanche Fuji
  [31337, 1], // anvil / dev mode
])

const ANVIL = 31337

/** Any other chain. */
export const DEFAULT_CONFIRMATIONS = 12

export const defaultConfirmations = (chainId: number): number =>
  CONFIRMATIONS_BY_CHAIN.get(chainId) ?? DEFAULT_CONFIRMATIONS

/** `HEAD_POLL_MS` when unset: about the block rhythm of public chains; anvil mines at once, so sooner. */
export const defaultHeadPollMs = (chainId: number): number => (chainId === ANVIL ? 100 : 1_000)
