import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../../model/failures.js'
import type { Address } from '../../model/payment.js'

declare module '../../ports/journal/recovery-journal.js' {
  interface RecoveryJournal {
    /**
     * The account nonces of every attempt of `owner`'s `submitted` and `confirmed` rows, and of its still watched
     * `reverted`, `cancelled` and `released` ones, whatever their age (a reorg may send them back): the nonces its
     * recorded transactions hold, so that recovery can tell a nonce nothing recorded will ever fill
     * (docs/ARCHITECTURE.md §5.5).
     */
    readonly accountNoncesInFlight: (owner: Address) => TE.TaskEither<JournalUnavailable, ReadonlyArray<bigint>>
  }
}

declare module '../../ports/recovery.js' {
  interface RecoveryReport {
    /** Nonces of this replica's account that no recorded transaction held, filled so later ones can be mined. */
    readonly noncesFilled?: ReadonlyArray<bigint>
  }
}
