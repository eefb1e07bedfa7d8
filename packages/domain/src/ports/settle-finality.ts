/**
 * What a settle asks of the watch that follows the chain head (docs/ARCHITECTURE.md §5.6; the app's FinalityWatcher):
 * how deep a block is, and a bounded wait for a row to be marked final.
 */
export interface SettleFinality {
  /** Blocks on top of `blockNumber` at the head last seen; undefined before the first head. */
  readonly confirmationsOf: (blockNumber: bigint) => number | undefined
  /** Resolves true once the row `id` is marked final, false after `ms` (or at once, `cancel`led). */
  readonly waitFinal: (id: string, ms: number) => { readonly done: Promise<boolean>; readonly cancel: () => void }
}
