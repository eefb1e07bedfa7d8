import type { NewSettlement } from '@x402-facilitator/domain'
import { keyValues, canonical, settlementColumns, transpose } from './journal-sql.js'
import { permit2Json } from './permit2-terms.js'
import { UINT256_MAX } from '../migrations/uint256.js'

const requirementsJson = (requirements: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(requirements, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))

/** An authorization to claim, and the chain its row records (null: the trigger of migration 0007 fills it in). */
export interface ClaimOf {
  readonly settlement: NewSettlement
  readonly chainId: string | null
}

/** The contract keeping the claim's nonce (docs/ARCHITECTURE.md §5, "Nonce spaces"), lower case. */
export const nonceSpaceOf = (settlement: NewSettlement): string => canonical(settlement.nonceSpace ?? settlement.asset)

/** Keyed by its nonce space rather than its token: a Permit2 claim (its nonce is the payer's across every token). */
export const keyedByNonceSpace = (settlement: NewSettlement): boolean =>
  nonceSpaceOf(settlement) !== canonical(settlement.asset)

/**
 * The claims as rows `v` of the columns they write, and `i`, each claim's place (from 1) in the values; both claim
 * statements start with it.
 */
export const claimInputs = `
  select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
    ?::text[], ?::jsonb[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[])
    with ordinality as v(network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements,
      owner, idempotency_key, request_hash, caller, chain_id, nonce_space, permit2, state, i)`

/**
 * What a claim writes, on insert and on taking a released row back (generation + 1, the old claim's fields reset). A
 * Permit2 row may be taken back for another token of its chain (its key is the nonce space): the row takes it.
 */
export const claimInsert = `insert into settlements as s (network, asset, payer, nonce, payee, value, valid_after,
    valid_before, signature, requirements, state, generation, owner, idempotency_key, request_hash, caller, chain_id,
    nonce_space, permit2)
  select network, asset, payer, nonce, payee, value, valid_after, valid_before, signature, requirements, state, 1,
    owner, idempotency_key, request_hash, caller, chain_id, nonce_space, permit2`
export const claimTakesBack = `
    asset = excluded.asset, payee = excluded.payee, value = excluded.value, valid_after = excluded.valid_after,
    valid_before = excluded.valid_before, signature = excluded.signature, requirements = excluded.requirements,
    state = excluded.state, generation = s.generation + 1, owner = excluded.owner,
    idempotency_key = excluded.idempotency_key, request_hash = excluded.request_hash, caller = excluded.caller,
    chain_id = coalesce(s.chain_id, excluded.chain_id), permit2 = excluded.permit2,
    tx_hash = null, block_number = null, block_hash = null, gas_used = null, error = null, reorged_at = null,
    refusals = 0, first_refused_at = null, watch_ended_at = null, payment_log_index = null,
    claimed_at = now(), updated_at = now()`

/**
 * One statement for one or more EIP-3009 authorizations (distinct keys): insert each row, or take a `released` one of
 * the same nonce space back; returns the rows claimed and, for the others, the existing row it could see with the
 * attempts of its current claim. `held`: that row keeps the nonce in another space (a Permit2 row of the same 32
 * bytes, by the payer's own doing): never taken back, a conflict whatever its state.
 */
export const claimSql = `
with v as (${claimInputs}),
claimed as (
  ${claimInsert} from v
  on conflict (network, asset, payer, nonce) do update set ${claimTakesBack}
  where s.state = 'released' and coalesce(s.nonce_space, s.asset) = excluded.nonce_space
  returning s.*
)
select true as claimed, false as held, c.*, '[]'::json as attempts from claimed c
union all
select false as claimed, coalesce(s.nonce_space, s.asset) <> v.nonce_space as held, ${settlementColumns('s')} from v
join settlements s on s.network = v.network and s.asset = v.asset and s.payer = v.payer and s.nonce = v.nonce
where not exists (select 1 from claimed c
  where c.network = v.network and c.asset = v.asset and c.payer = v.payer and c.nonce = v.nonce)`

export const claimValues = (claims: ReadonlyArray<ClaimOf>): unknown[][] =>
  transpose(
    claims.map(({ settlement, chainId }) => [
      ...keyValues(settlement),
      canonical(settlement.payee),
      settlement.value.toString(),
      // A payment without a validity window (its family has none) is valid from the start and never expires.
      (settlement.validAfter ?? 0n).toString(),
      settlement.validBefore?.toString() ?? UINT256_MAX,
      settlement.signature,
      requirementsJson(settlement.requirements),
      canonical(settlement.owner),
      settlement.idempotencyKey ?? null,
      settlement.requestHash ?? null,
      settlement.caller ?? null,
      chainId,
      nonceSpaceOf(settlement),
      permit2Json(settlement.permit2),
      settlement.waived === true ? 'waived' : 'claimed',
    ]),
  )
