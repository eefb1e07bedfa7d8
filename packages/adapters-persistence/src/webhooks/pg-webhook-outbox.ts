import type { AttemptOutcome, DeliveryRecord, LeasedDelivery, WebhookOutbox } from '@x402-facilitator/domain'
import type { PgPool } from '../database/create-pg-pool.js'
import {
  FAN_OUT_LOCK_KEY,
  backlogSql,
  fanOutSql,
  leaseSql,
  recordSql,
  pruneSql,
  recentSql,
} from './webhook-outbox-sql.js'

interface LeasedRow {
  id: string
  endpoint: string
  settlement_id: string
  lease_token: string
  attempts: number
  event_id: string
  kind: string
  from_state: string | null
  to_state: string
  created_at: Date
  settlement: Record<string, unknown>
}

/** A fan-out's row: a delivery written (`lease_token` null: not leased), or only `fanned` when none was. */
type FannedRow = { fanned: number } & { [K in keyof LeasedRow]: LeasedRow[K] | null }

const leasedDelivery = (row: LeasedRow): LeasedDelivery => ({
  id: row.id,
  endpoint: row.endpoint,
  settlementId: row.settlement_id,
  leaseToken: row.lease_token,
  attempts: row.attempts,
  event: {
    eventId: row.event_id,
    kind: row.kind,
    fromState: row.from_state,
    toState: row.to_state,
    createdAt: row.created_at,
    settlement: row.settlement,
  },
})

const deliveryRecord = (row: Record<string, unknown>): DeliveryRecord => ({
  id: row.id as string,
  endpoint: row.endpoint as string,
  state: row.state as string,
  attempts: row.attempts as number,
  lastStatus: row.last_status as number | null,
  lastError: row.last_error as string | null,
  nextAttemptAt: row.next_attempt_at as Date,
  createdAt: row.created_at as Date,
  deliveredAt: row.delivered_at as Date | null,
  eventId: row.event_id as string,
  kind: row.kind as string,
  settlementId: row.settlement_id as string,
})

/** A named prepared statement (`webhook-outbox-sql.ts`): each connection parses and plans it once. */
const named = (name: string, text: string, values: unknown[]) => ({ name: `webhook-outbox-${name}`, text, values })

/** The outbox on Postgres (docs/ARCHITECTURE.md §5.9), on a pool of its own: it never waits for the journal's. */
export const makePgWebhookOutbox = (pool: PgPool): WebhookOutbox => ({
  fanOut: async (endpoints, now, limit, until) => {
    const endpointsJson = JSON.stringify(
      endpoints.map(({ id, events, room, payees = [], networks = [] }) => ({ id, events, room, payees, networks })),
    )
    const values = [endpointsJson, now, limit, FAN_OUT_LOCK_KEY, until]
    const { rows } = await pool.query<FannedRow>(named('fan-out', fanOutSql, values))
    const written = rows.filter((row) => row.id !== null).sort((a, b) => Number(a.id) - Number(b.id))
    return {
      fanned: rows[0]!.fanned,
      leased: written.filter((row) => row.lease_token !== null).map((row) => leasedDelivery(row as LeasedRow)),
      waiting: written
        .filter((row) => row.lease_token === null)
        .map((row) => ({ endpoint: row.endpoint!, settlementId: row.settlement_id! })),
    }
  },
  lease: async (endpoint, now, until, limit) => {
    const { rows } = await pool.query<LeasedRow>(named('lease', leaseSql, [now, until, limit, endpoint]))
    return rows.map(leasedDelivery).sort((a, b) => Number(a.id) - Number(b.id))
  },
  record: async (outcomes) => {
    if (outcomes.length === 0) return new Set()
    const column = <A>(of: (outcome: AttemptOutcome) => A) => outcomes.map(of)
    const { rows } = await pool.query<{ id: string }>(
      named('record', recordSql, [
        column((o) => o.delivery.id),
        column((o) => o.delivery.leaseToken),
        column((o) => o.delivered),
        column((o) => o.status),
        column((o) => o.error),
        column((o) => o.retryAt),
        column((o) => o.now),
      ]),
    )
    return new Set(rows.map((row) => row.id))
  },
  prune: async (before) => {
    const { rows } = await pool.query<{ pruned: string }>(named('prune', pruneSql, [before, before, FAN_OUT_LOCK_KEY]))
    return Number(rows[0]!.pruned)
  },
  recent: async ({ endpoint, state, settlementId, limit }) => {
    const { rows } = await pool.query(recentSql, [endpoint ?? null, state ?? null, settlementId ?? null, limit])
    return rows.map(deliveryRecord)
  },
  backlog: async (now) => {
    const { rows } = await pool.query<{ pending: number; oldest: Date | null }>(named('backlog', backlogSql, []))
    const { pending, oldest } = rows[0]!
    return { pending, oldestMs: oldest === null ? 0 : Math.max(0, now.getTime() - oldest.getTime()) }
  },
})
