import type { NewSettlement } from '@x402-facilitator/domain'
import { keyValues, lower, settlementColumns, transpose } from './journal-sql.js'

const requirementsJson = (requirements: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(requirements, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))

/** An authorization to claim, and the chain its row records (null: the trigger of migration 0007 fills it in). */
export interface ClaimOf {
  readonly settlement: NewSettlement
  readonly chainId: string | null
}

/**
 * One statement for one or more authorizations (distinct keys): insert each row, or take a `released` one back
 * (generation + 1, fields reset); returns the rows claimed and, for the others, the existing row it could see with the
 * attempts of its current claim.
 */
export const claimSql = `
with v as (
  select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
    ?::text[], ?::jsonb[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
    as v(network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements, owner,
      idempotency_key, request_hash, caller, chain_id)
),
claimed as (
  insert into settlements as s (network, asset, payer, nonce, payee, value, valid_after, valid_before, signature,
    requirements, state, generation, owner, idempotency_key, request_hash, caller, chain_id)
  select network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements, 'claimed', 1,
    owner, idempotency_key, request_hash, caller, chain_id from v
  on conflict (network, asset, payer, nonce) do update set
    payee = excluded.payee, value = excluded.value, valid_after = excluded.valid_after,
    valid_before = excluded.valid_before, signature = excluded.signature, requirements = excluded.requirements,
    state = 'claimed', generation = s.generation + 1, owner = excluded.owner,
    idempotency_key = excluded.idempotency_key, request_hash = excluded.request_hash, caller = excluded.caller,
    chain_id = coalesce(s.chain_id, excluded.chain_id),
    tx_hash = null, block_number = null, block_hash = null, gas_used = null, error = null, reorged_at = null,
    refusals = 0, first_refused_at = null, watch_ended_at = null,
    claimed_at = now(), updated_at = now()
  where s.state = 'released'
  returning s.*
)
select true as claimed, c.*, '[]'::json as attempts from claimed c
union all
select false as claimed, ${settlementColumns('s')} from v
join settlements s on s.network = v.network and s.asset = v.asset and s.payer = v.payer and s.nonce = v.nonce
where not exists (select 1 from claimed c
  where c.network = v.network and c.asset = v.asset and c.payer = v.payer and c.nonce = v.nonce)`

export const claimValues = (claims: ReadonlyArray<ClaimOf>): unknown[][] =>
  transpose(
    claims.map(({ settlement, chainId }) => [
      ...keyValues(settlement),
      lower(settlement.payee),
      settlement.value.toString(),
      settlement.validAfter.toString(),
      settlement.validBefore.toString(),
      settlement.signature,
      requirementsJson(settlement.requirements),
      lower(settlement.owner),
      settlement.idempotencyKey ?? null,
      settlement.requestHash ?? null,
      settlement.caller ?? null,
      chainId,
    ]),
  )
