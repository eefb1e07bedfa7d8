/**
 * Rule 6's margin when `VALIDITY_MARGIN_SECONDS` is unset (docs/ARCHITECTURE.md §3): two blocks of the chain, and
 * never below 6 s. A `validBefore` inside the next slot can only revert; two blocks leave room for one missed slot or a
 * transaction that misses the next block. The block time is measured from recent headers at start-up; on a chain
 * too young to tell, the known block time of its chain id, else Ethereum's 12 s.
 */
const BLOCK_SECONDS_BY_CHAIN: ReadonlyMap<number, number> = new Map([
  [1, 12], // Ethereum
  [11155111, 12], // Sepolia
  [17000, 12], // Holesky
  [137, 2], // Polygon PoS
  [80002, 2], // Polygon Amoy
  [8453, 2], // Base
  [84532, 2], // Base Sepolia
  [10, 2], // OP Mainnet
  [11155420, 2], // OP Sepolia
  [42161, 1], // Arbitrum One (0.25 s)
  [421614, 1], // Arbitrum Sepolia
  [43114, 2], // Avalanche C-Chain
  [43113, 2], // Avalanche Fuji
  [31337, 1], // anvil, a block per transaction
])

export const MIN_VALIDITY_MARGIN_SECONDS = 6

export const blockSecondsOf = (measured: number | undefined, chainId: number): number =>
  measured ?? BLOCK_SECONDS_BY_CHAIN.get(chainId) ?? 12

export const defaultValidityMargin = (blockSeconds: number): number =>
  Math.max(MIN_VALIDITY_MARGIN_SECONDS, 2 * blockSeconds)
