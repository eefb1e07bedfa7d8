import type { Knex } from 'knex'
import { createSettlements } from './0001-create-settlements.js'
import { attemptsUniquePerClaim } from './0002-attempts-unique-per-claim.js'
import { blockHashAndFinal } from './0003-block-hash-and-final.js'
import { batchAttempts } from './0004-batch-attempts.js'
import { successAnswered } from './0005-success-answered.js'
import { rowEndsAndWatch } from './0006-row-ends-and-watch.js'
import { journalChainId } from './0007-journal-chain-id.js'
import { journalNonceSpace } from './0008-journal-nonce-space.js'
import { settlementEvents } from './0009-settlement-events.js'
import { eventReceiptFields } from './0010-event-receipt-fields.js'
import { releasedMinedEvent } from './0011-released-mined-event.js'
import { webhookOutboxCost } from './0012-webhook-outbox-cost.js'
import { releasedReminedEvent } from './0013-released-remined-event.js'
import { paymentLog } from './0014-payment-log.js'
import { attemptTermsOptional } from './0015-attempt-terms-optional.js'
import { svmSpellings } from './0016-svm-spellings.js'
import { svmEventTransferMethod } from './0017-svm-event-transfer-method.js'
import { discoveryCatalog } from './0018-discovery-catalog.js'

export interface Migration {
  readonly name: string
  readonly up: (knex: Knex) => Promise<void>
}

/** In order; append only. Forward-only: a mistake is fixed by a new migration, never by a `down`. */
export const migrations: ReadonlyArray<Migration> = [
  createSettlements,
  attemptsUniquePerClaim,
  blockHashAndFinal,
  batchAttempts,
  successAnswered,
  rowEndsAndWatch,
  journalChainId,
  journalNonceSpace,
  settlementEvents,
  eventReceiptFields,
  releasedMinedEvent,
  webhookOutboxCost,
  releasedReminedEvent,
  paymentLog,
  attemptTermsOptional,
  svmSpellings,
  svmEventTransferMethod,
  discoveryCatalog,
]

/** An in-code list, so compiled ESM output needs no migrations directory nor knexfile. */
export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => ({
    up: migration.up,
    down: async () => {
      throw new Error(`migration ${migration.name} is forward-only`)
    },
  }),
}
