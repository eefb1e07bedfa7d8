import { claimInputs, claimInsert, claimTakesBack } from './journal-claim-sql.js'
import { settlementColumns } from './journal-sql.js'

/**
 * One statement for one or more claims keyed by their nonce space (Permit2 payments, docs/ARCHITECTURE.md §5, "Nonce
 * spaces"), values as `claimValues`; the claims of one statement share no key (their own, the old one, a sponsored
 * permit: journal-claims.ts). Unique per (chain, nonce space, payer, nonce) whatever the token: a Permit2 nonce used on
 * two tokens of one chain is one row. A claim's chain, when the journal has no scope, is its network's in
 * `journal_networks` (without one the insert is refused: such a row needs its chain, see migration 0008). Each answer
 * row carries `i`, the place of its claim in the values.
 *
 * Besides its own row, two rows may hold what a claim needs (`holder`, a conflict whatever its state):
 * - the row of the old unique key (network, token, payer, nonce) in another nonce space (an EIP-3009 nonce of the same
 *   32 bytes, by the payer's own doing): the insert would break that key;
 * - a row holding the same sponsored EIP-2612 permit (chain, token, owner, permit nonce) under another Permit2 nonce:
 *   a permit is spent once. The partial unique index `settlements_chain_sponsored_permit_idx` (journal-indexes.ts)
 *   keeps it so against races; a released or waived row holds none (its permit was not spent: the payer may sign the
 *   same token nonce again).
 * A race past these reads breaks a unique index (23505): the statement is rolled back, and its claims run again alone.
 */
/**
 * Whether a released Permit2 row may be claimed again by `claim`: for the same charge (an `upto` of another amount, or
 * waived, must not meet an earlier attempt of the row mined after all: the payer would be charged what no row says),
 * or once it is judged (its watch ended: none of its attempts can move anything, docs/ARCHITECTURE.md §5.5), or when
 * nothing of it was ever signed. Else it is held: the claim conflicts with it.
 */
const releasedTakenBack = (row: string, claim: string): string =>
  `(${claim}.state <> 'waived' and ${claim}.value = ${row}.value) or ${row}.watch_ended_at is not null ` +
  `or not exists (select 1 from settlement_attempts a where a.settlement_id = ${row}.id)`

export const permit2ClaimSql = `
with given as (${claimInputs}),
v as (
  select g.network, g.asset, g.payer, g.nonce, g.payee, g.value, g.valid_after, g.valid_before, g.signature,
    g.requirements, g.owner, g.idempotency_key, g.request_hash, g.caller,
    coalesce(g.chain_id, (select n.chain_id from journal_networks n where n.name = g.network)) as chain_id,
    g.nonce_space, g.permit2, g.state, g.i
  from given g
),
h as (
  select v.*, coalesce(
    (select o.id from settlements o
     where o.network = v.network and o.asset = v.asset and o.payer = v.payer and o.nonce = v.nonce
       and coalesce(o.nonce_space, o.asset) <> v.nonce_space),
    (select o.id from settlements o
     where v.permit2 -> 'sponsored_permit' is not null and o.chain_id = v.chain_id and o.asset = v.asset
       and o.payer = v.payer and (o.permit2 #>> '{sponsored_permit,nonce}') = (v.permit2 #>> '{sponsored_permit,nonce}')
       and o.permit2 -> 'sponsored_permit' is not null and o.state not in ('released', 'waived')
       and not (o.nonce_space = v.nonce_space and o.nonce = v.nonce)
     order by o.id limit 1)
  ) as holder
  from v
),
claimed as (
  ${claimInsert} from h where h.holder is null
  on conflict (chain_id, nonce_space, payer, nonce) do update set ${claimTakesBack}
  where s.state = 'released' and (${releasedTakenBack('s', 'excluded')})
  returning s.*
)
select true as claimed, false as held, h.i, c.*, '[]'::json as attempts from claimed c
join h on c.chain_id = h.chain_id and c.nonce_space = h.nonce_space and c.payer = h.payer and c.nonce = h.nonce
union all
select false as claimed,
  coalesce(s.id = h.holder, false) or (s.state = 'released' and not (${releasedTakenBack('s', 'h')})) as held, h.i,
  ${settlementColumns('s')} from h
left join lateral (select x.id, x.state from settlements x
  where x.chain_id = h.chain_id and x.nonce_space = h.nonce_space and x.payer = h.payer and x.nonce = h.nonce
) own on true
join settlements s on s.id = coalesce(case when own.state <> 'released' then own.id end, h.holder, own.id)
where not exists (select 1 from claimed c
  where c.chain_id = h.chain_id and c.nonce_space = h.nonce_space and c.payer = h.payer and c.nonce = h.nonce)`
