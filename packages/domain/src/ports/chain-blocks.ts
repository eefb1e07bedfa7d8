import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../model/failures.js'
import type { TxHash } from '../model/payment.js'

/** The chain's blocks as the finality watcher reads them (docs/ARCHITECTURE.md §5.6). */
export interface ChainBlocks {
  /** The height of the latest block. */
  readonly head: TE.TaskEither<ChainUnavailable, bigint>
  /**
   * The latest block's height and hash, in one read: a reorg to a new chain of the same height changes only the hash
   * (§5.6).
   */
  readonly latest: TE.TaskEither<ChainUnavailable, { readonly height: bigint; readonly hash: TxHash }>
  /** The hash of the block at each height, read in one batch; a height the chain does not have is left out. */
  readonly hashesAt: (heights: ReadonlyArray<bigint>) => TE.TaskEither<ChainUnavailable, ReadonlyMap<bigint, TxHash>>
}
