/**
 * The statements of the webhook outbox (docs/ARCHITECTURE.md §5.9); values `$n`, in the order each names. Each is
 * run as a named prepared statement (`pg-webhook-outbox.ts`): parsed and planned once per connection, it costs
 * Postgres a fifth of an unnamed one's CPU when it finds nothing to do.
 */

/** One replica fans out at a time, so a payment's deliveries are written in its events' order. */
export const FAN_OUT_LOCK_KEY = 0x5e771e5

/**
 * Values: endpoints (JSON `[{id, events, room, payees, networks}]`: an endpoint is told of the events of its kinds, of
 * payments to its payees, on its networks, each list empty for all), now, limit, lock key, until. One statement, so
 * one transaction: its advisory lock (taken first, or nothing is done) lets one replica fan out at a time. The events are marked by their
 * ids (an index scan: a join with the CTE was planned as a hash join over every event kept). A new delivery is
 * written already leased (attempts 1), so its first attempt costs no lease, when it is the first of its (endpoint,
 * payment) in the batch, none of that pair is pending, it fits in its endpoint's room, and no other fan-out committed
 * unseen by this statement's snapshot (migration 0012's epoch). Rows: one per delivery written (`lease_token` null:
 * left for `lease`), or one with nulls when none was; `fanned` in each: how many events were fanned out.
 */
export const fanOutSql = `
with lock as materialized (select pg_try_advisory_xact_lock($4) as held),
seen as materialized (select n from webhook_fan_out_epoch),
epoch as materialized (
  update webhook_fan_out_epoch o set n = o.n + 1 from lock where lock.held returning o.n - 1 as n
),
ev as (
  update settlement_events e set fanned_out = true
  where e.id = any(array(select u.id from settlement_events u, lock
    where lock.held and not u.fanned_out order by u.id limit $3 for update of u))
  returning e.id, e.settlement_id, e.kind, e.event_id, e.from_state, e.to_state, e.created_at, e.settlement
), pair as (
  select ev.id, ev.settlement_id, ep.id as endpoint, ep.room,
    row_number() over (partition by ep.id, ev.settlement_id order by ev.id) as nth_of_payment
  from ev cross join jsonb_to_recordset($1::jsonb) as ep(id text, events jsonb, room int, payees jsonb, networks jsonb)
  where (jsonb_array_length(ep.events) = 0 or ep.events @> to_jsonb(ev.kind))
    and (jsonb_array_length(ep.payees) = 0 or ep.payees @> to_jsonb(lower(ev.settlement ->> 'payee')))
    and (jsonb_array_length(ep.networks) = 0 or ep.networks @> to_jsonb(ev.settlement ->> 'network')
      or ep.networks @> to_jsonb(ev.settlement ->> 'chainId'))
), head as (
  select h.id, h.endpoint from (
    select p.id, p.endpoint, p.room, row_number() over (partition by p.endpoint order by p.id) as nth_of_endpoint
    from pair p
    where p.nth_of_payment = 1 and (select n from seen) = (select n from epoch)
      and not exists (select 1 from webhook_deliveries d where d.state = 'pending' and d.endpoint = p.endpoint
        and d.settlement_id = p.settlement_id)
  ) h where h.nth_of_endpoint <= h.room
), ins as (
  insert into webhook_deliveries (event_seq, settlement_id, endpoint, next_attempt_at, created_at, attempts,
    leased_until, lease_token)
  select p.id, p.settlement_id, p.endpoint, $2::timestamptz, $2::timestamptz, case when h.id is null then 0 else 1 end,
    case when h.id is not null then $5::timestamptz end, case when h.id is not null then gen_random_uuid() end
  from pair p left join head h on h.id = p.id and h.endpoint = p.endpoint
  order by p.id
  on conflict do nothing
  returning id, event_seq, endpoint, attempts, lease_token
)
select c.fanned, d.* from (select count(*)::int as fanned from ev) c left join (
  select ins.id::text, ins.endpoint, ins.lease_token::text, ins.attempts, ev.settlement_id::text, ev.event_id::text,
    ev.kind, ev.from_state, ev.to_state, ev.created_at,
    case when ins.lease_token is not null then ev.settlement end as settlement
  from ins join ev on ev.id = ins.event_seq
) d on true`

/**
 * Values: now, until, limit, endpoint. A delivery is due when its time came, no live lease holds it and no earlier
 * event of its (endpoint, payment) is still pending: a payment's events reach an endpoint in order.
 */
export const leaseSql = `
with due as (
  select d.id from webhook_deliveries d
  where d.state = 'pending' and d.endpoint = $4 and d.next_attempt_at <= $1::timestamptz
    and (d.leased_until is null or d.leased_until <= $1::timestamptz)
    and not exists (select 1 from webhook_deliveries e where e.state = 'pending' and e.endpoint = d.endpoint
      and e.settlement_id = d.settlement_id and e.event_seq < d.event_seq)
  order by d.next_attempt_at, d.id limit $3
  for update of d skip locked
)
update webhook_deliveries w set leased_until = $2::timestamptz, lease_token = gen_random_uuid(),
  attempts = w.attempts + 1
from due, settlement_events ev where w.id = due.id and ev.id = w.event_seq
returning w.id::text, w.endpoint, w.lease_token::text, w.attempts, w.settlement_id::text, ev.event_id::text, ev.kind,
  ev.from_state, ev.to_state, ev.created_at, ev.settlement`

/** Values: arrays of id, lease token, delivered, status, error, retry time (null: dead), now. */
export const recordSql = `
update webhook_deliveries d set
  state = case when v.delivered then 'delivered' when v.retry_at is null then 'dead' else 'pending' end,
  last_status = v.status, last_error = v.error, leased_until = null,
  delivered_at = case when v.delivered then v.now end,
  next_attempt_at = case when v.delivered then d.next_attempt_at else coalesce(v.retry_at, d.next_attempt_at) end,
  ended_at = case when v.delivered or v.retry_at is null then v.now end
from unnest($1::bigint[], $2::uuid[], $3::boolean[], $4::int[], $5::text[], $6::timestamptz[], $7::timestamptz[])
  as v(id, token, delivered, status, error, retry_at, now)
where d.id = v.id and d.lease_token = v.token and d.state = 'pending'
returning d.id::text as id`

/**
 * Values: before, before, lock key. An event goes once no delivery names it (those deleted by this statement are
 * still seen: the next prune takes it), so a delivery ended since `before` keeps its event. Events are deleted only
 * under the fan-out's lock and when no fan-out committed unseen by this statement's snapshot (the epoch's latest
 * version, read `for update`, is the one seen): an event being fanned out is never deleted under its new deliveries.
 */
export const pruneSql = `
with lock as materialized (select pg_try_advisory_xact_lock($3) as held),
seen as materialized (select n from webhook_fan_out_epoch),
latest as materialized (select o.n from webhook_fan_out_epoch o, lock where lock.held for update of o),
gone as (delete from webhook_deliveries where state <> 'pending' and ended_at < $1::timestamptz returning id),
events as (
  delete from settlement_events e where e.created_at < $2::timestamptz and (select n from seen) = (select n from latest)
    and not exists (select 1 from webhook_deliveries d where d.event_seq = e.id)
  returning id
)
select (select count(*) from gone) + (select count(*) from events) as pruned`

/** Values: endpoint, state, settlement id (each null: any), limit. */
export const recentSql = `
select d.id::text, d.endpoint, d.state, d.attempts, d.last_status, d.last_error, d.next_attempt_at, d.created_at,
  d.delivered_at, ev.event_id::text, ev.kind, d.settlement_id::text
from webhook_deliveries d join settlement_events ev on ev.id = d.event_seq
where ($1::text is null or d.endpoint = $1) and ($2::text is null or d.state = $2)
  and ($3::bigint is null or d.settlement_id = $3::bigint)
order by d.id desc limit $4`

/** Values: none. */
export const backlogSql = `
select count(*)::int as pending, min(created_at) as oldest from webhook_deliveries where state = 'pending'`
