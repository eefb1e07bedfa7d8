import {
  describeOrphans,
  type ReadinessCheck,
  findOrphanedKeys,
  type EvmAddress as Address,
  type ReplicaLiveness,
  type SettlementJournal,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'

/**
 * `/readyz`'s `orphanedKeys` part: informational (always ok, the replica can serve), naming each orphaned key and its
 * row count so that a key removed before it was drained shows (docs/OPERATIONS.md, "Key pool").
 */
export const orphanedKeysCheck =
  (deps: {
    journal: Pick<SettlementJournal, 'ownersWithOpenRows'>
    liveness: ReplicaLiveness
    own: ReadonlyArray<Address>
  }) =>
  async (): Promise<ReadinessCheck> => {
    const orphans = await findOrphanedKeys(deps.journal, deps.liveness, deps.own)
    if (E.isLeft(orphans)) return { ok: true, detail: `not known: ${orphans.left}` }
    return { ok: true, detail: orphans.right.length === 0 ? 'none' : describeOrphans(orphans.right) }
  }

/**
 * `read`'s last answer while younger than `intervalMs`: callers in between share one read (anonymous probes cost
 * nothing).
 */
export const atMostEvery = <A>(
  intervalMs: number,
  read: () => Promise<A>,
  now: () => number = () => performance.now(),
): (() => Promise<A>) => {
  let last: { readonly at: number; readonly answer: Promise<A> } | undefined
  return () => {
    if (last === undefined || now() - last.at >= intervalMs) last = { at: now(), answer: read() }
    return last.answer
  }
}
