import type { Knex } from 'knex'

/**
 * The discovery catalog (docs/ARCHITECTURE.md §5.10): one row per (resource, operation, payee), the latest declaration
 * of it and when a payment for it last settled; never the payer. `search` is Postgres' full-text index of the
 * description and of the resource URL's words (English stemming on both).
 */
export const discoveryCatalog = {
  name: '0018-discovery-catalog',
  up: async (knex: Knex): Promise<void> => {
    await knex.raw(`
      create table discovery_resources (
        resource text not null,
        operation text not null,
        pay_to text not null,
        type text not null,
        x402_version integer not null,
        description text,
        mime_type text,
        service_name text,
        tags jsonb,
        icon_url text,
        accepts jsonb not null,
        extensions jsonb not null,
        network text not null,
        asset text not null,
        scheme text not null,
        last_settled_at timestamptz not null,
        hidden boolean not null default false,
        search tsvector generated always as (
          to_tsvector('english', coalesce(description, '') || ' ' || regexp_replace(resource, '[^[:alnum:]]+', ' ', 'g'))
        ) stored,
        primary key (resource, operation, pay_to)
      )`)
    await knex.raw(`create index discovery_resources_listing_idx on discovery_resources
      (last_settled_at desc, resource collate "C", operation collate "C", pay_to collate "C") where not hidden`)
    await knex.raw(`create index discovery_resources_payee_idx on discovery_resources (pay_to, last_settled_at)`)
    await knex.raw(`create index discovery_resources_search_idx on discovery_resources using gin (search)`)
  },
}
