import type { Knex } from 'knex'
import { UINT256_MAX } from './uint256.js'

const address = (column: string) => `${column} ~ '^0x[0-9a-f]{40}$'`
const hash = (column: string) => `${column} ~ '^0x[0-9a-f]{64}$'`
const uint256 = (column: string) => `${column} between 0 and ${UINT256_MAX}`

const statements: ReadonlyArray<string> = [
  `create table settlements (
    id bigint generated always as identity primary key,
    network text not null,
    asset text not null check (${address('asset')}),
    payer text not null check (${address('payer')}),
    nonce text not null check (${hash('nonce')}),
    payee text not null check (${address('payee')}),
    value numeric(78, 0) not null check (${uint256('value')}),
    valid_after numeric(78, 0) not null check (${uint256('valid_after')}),
    valid_before numeric(78, 0) not null check (${uint256('valid_before')}),
    signature text not null check (signature ~* '^0x[0-9a-f]*$'),
    requirements jsonb not null,
    state text not null check (state in ('claimed', 'submitted', 'confirmed', 'reverted', 'released')),
    generation integer not null default 1 check (generation >= 1),
    owner text not null check (${address('owner')}),
    idempotency_key text,
    request_hash text,
    tx_hash text check (${hash('tx_hash')}),
    block_number numeric(78, 0) check (${uint256('block_number')}),
    gas_used numeric(78, 0) check (${uint256('gas_used')}),
    error text,
    created_at timestamptz not null default now(),
    claimed_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint settlements_authorization_key unique (network, asset, payer, nonce)
  )`,
  // Recovery scans only unfinished rows, oldest change first.
  `create index settlements_unfinished_idx on settlements (state, updated_at)
    where state in ('claimed', 'submitted')`,
  // Not unique: a key expires (docs/ARCHITECTURE.md §5) and may come back with another authorization.
  `create index settlements_idempotency_key_idx on settlements (idempotency_key, claimed_at)
    where idempotency_key is not null`,
  `create table settlement_attempts (
    id bigint generated always as identity primary key,
    settlement_id bigint not null references settlements (id) on delete cascade,
    generation integer not null,
    tx_hash text not null check (${hash('tx_hash')}),
    raw text not null check (raw ~* '^0x[0-9a-f]+$'),
    account_nonce numeric(20, 0) not null check (account_nonce between 0 and 18446744073709551615),
    max_fee_per_gas numeric(78, 0) not null check (${uint256('max_fee_per_gas')}),
    max_priority_fee_per_gas numeric(78, 0) not null check (${uint256('max_priority_fee_per_gas')}),
    sent_at timestamptz not null,
    created_at timestamptz not null default now(),
    constraint settlement_attempts_tx_hash_key unique (tx_hash)
  )`,
  `create index settlement_attempts_settlement_idx on settlement_attempts (settlement_id, generation, id)`,
]

export const createSettlements = {
  name: '0001-create-settlements',
  up: async (knex: Knex): Promise<void> => {
    for (const statement of statements) await knex.raw(statement)
  },
}
