import * as E from 'fp-ts/lib/Either.js'
import type { Address } from '../../model/payment.js'
import type { Log } from '../../ports/log.js'
import type { ReplicaLiveness } from '../../ports/replica-liveness.js'
import type { SettlementJournal } from '../../ports/settlement-journal.js'
import type { OwnerRows } from '../../ports/settlement-row.js'

/**
 * docs/ARCHITECTURE.md §5.8: signing keys that own rows still to follow (unfinished, confirmed not final, watched
 * after a revert) while no replica holds their lock — a key removed from the pool, or a replica that stopped.
 * Recovery and the finality watcher of the running replicas follow them, but only the owner's key can sign a
 * replacement, so an operator must hear of it. `own`: this replica's keys (never orphaned while it runs).
 */
export const findOrphanedKeys = async (
  journal: Pick<SettlementJournal, 'ownersWithOpenRows'>,
  liveness: ReplicaLiveness,
  own: ReadonlyArray<Address>,
  finalFrom?: bigint,
): Promise<E.Either<string, ReadonlyArray<OwnerRows>>> => {
  const owners = await journal.ownersWithOpenRows(finalFrom)()
  if (E.isLeft(owners)) return E.left(owners.left.reason)
  const mine = new Set(own.map((a) => a.toLowerCase()))
  const orphaned: OwnerRows[] = []
  for (const owner of owners.right) {
    if (mine.has(owner.owner.toLowerCase())) continue
    const alive = await liveness.isAlive(owner.owner)()
    if (E.isLeft(alive)) return E.left(alive.left.reason)
    if (!alive.right) orphaned.push(owner)
  }
  return E.right(orphaned)
}

/** One line per orphaned key: its account and how many rows. */
export const describeOrphans = (orphans: ReadonlyArray<OwnerRows>): string =>
  orphans
    .map((o) => `${o.owner}: ${o.rows} row${o.rows === 1 ? '' : 's'} to follow and no replica holds its lock`)
    .join('; ')

/** At start-up: one warning line per orphaned key, naming its account and row count. */
export const warnOfOrphanedKeys = async (
  journal: Pick<SettlementJournal, 'ownersWithOpenRows'>,
  liveness: ReplicaLiveness,
  own: ReadonlyArray<Address>,
  logger: Log,
): Promise<void> => {
  const orphans = await findOrphanedKeys(journal, liveness, own)
  if (E.isLeft(orphans)) return
  for (const orphan of orphans.right) {
    logger.warn(
      { account: orphan.owner, rows: orphan.rows },
      `signing key ${orphan.owner} has ${orphan.rows} row${orphan.rows === 1 ? '' : 's'} to follow and no ` +
        `replica holds its lock: this replica follows them, but only that key can sign a replacement ` +
        `(docs/OPERATIONS.md, "Key pool": drain a key before removing it)`,
    )
  }
}
