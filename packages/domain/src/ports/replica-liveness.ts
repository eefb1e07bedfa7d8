import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { Address } from '../model/payment.js'

/** Whether the replica that owns a row still runs (holds its advisory lock): only then is the row its own business. */
export interface ReplicaLiveness {
  readonly isAlive: (owner: Address) => TE.TaskEither<JournalUnavailable, boolean>
}
