import { waitFor } from './support/wait-for.js'

/** Waits a turn of the event loop at a time (the in-memory fakes answer on later turns) until `condition` holds. */
export const until = (condition: () => boolean, what = 'the awaited state'): Promise<true> =>
  waitFor<true>(what, () => condition() || undefined, 30_000, 0)
