import { canonical } from './journal-sql.js'
import type { Knex } from 'knex'
import { fillNonceSpaces } from './journal-nonce-space.js'

/** A network this replica serves: its name (what rows hold in `network`), its CAIP-2 id and, when told, its tokens. */
export interface JournalNetwork {
  readonly name: string
  readonly chainId: string
  /** Its tokens (lower case); unset: any token of the network counts as served. */
  readonly assets?: ReadonlyArray<string>
}

/** Unfinished rows of networks (or tokens) no longer configured: starting would lose track of their money. */
export class UnknownJournalNetworks extends Error {
  constructor(
    readonly counts: ReadonlyArray<{ readonly network: string; readonly asset?: string; readonly unfinished: number }>,
  ) {
    super(
      'the journal holds unfinished settlements of networks or tokens not configured: ' +
        counts.map((c) => `${c.network}${c.asset === undefined ? '' : ` ${c.asset}`} (${c.unfinished})`).join(', ') +
        ': refusing to start. Configure those networks and tokens again, or finish their rows first.',
    )
    this.name = 'UnknownJournalNetworks'
  }
}

export interface RegisterNetworksOptions {
  /** Rows filled per statement, so that no statement holds many row locks for long [10 000]. */
  readonly batchRows?: number
  readonly progress?: (line: string) => void
}

/**
 * Records each network's CAIP-2 id (a name already recorded with another id is refused: its rows would be misread),
 * then fills `chain_id` and `nonce_space` where missing, a range of ids per statement. Refuses
 * (`UnknownJournalNetworks`)
 * unfinished rows of a network not configured; finished ones are only told (docs/ARCHITECTURE.md §5, "Networks").
 */
export const registerJournalNetworks = async (
  knex: Knex,
  networks: ReadonlyArray<JournalNetwork>,
  options: RegisterNetworksOptions = {},
): Promise<void> => {
  const batchRows = options.batchRows ?? 10_000
  for (const { name, chainId } of networks) {
    await knex.raw('insert into journal_networks (name, chain_id) values (?, ?) on conflict do nothing', [
      name,
      chainId,
    ])
    const stored = await knex.raw<{ rows: Array<{ name: string; chain_id: string }> }>(
      'select name, chain_id from journal_networks where name = ? or chain_id = ?',
      [name, chainId],
    )
    const clash = stored.rows.find((row) => row.name !== name || row.chain_id !== chainId)
    if (clash !== undefined) {
      throw new Error(
        `the journal records network ${clash.name} as ${clash.chain_id}; configured: ${name} as ${chainId}. ` +
          'A network keeps its name and chain id: refusing to start.',
      )
    }
  }
  const range = await knex.raw<{ rows: Array<{ low: string | null; high: string | null }> }>(
    'select min(id)::text as low, max(id)::text as high from settlements where chain_id is null',
  )
  const { low, high } = range.rows[0] ?? { low: null, high: null }
  if (low !== null && high !== null) {
    for (let from = BigInt(low); from <= BigInt(high); from += BigInt(batchRows)) {
      await knex.raw(
        `update settlements s set chain_id = n.chain_id from journal_networks n
         where s.chain_id is null and n.name = s.network and s.id >= ?::bigint and s.id < ?::bigint`,
        [from.toString(), (from + BigInt(batchRows)).toString()],
      )
    }
  }
  await fillNonceSpaces(knex, batchRows)
  await refuseUnservedRows(knex, networks)
  const names = networks.map((n) => n.name)
  const left = await knex.raw<{ rows: Array<{ network: string; finished: number }> }>(
    `select network, count(*)::integer as finished from settlements where chain_id is null
       and network not in (select jsonb_array_elements_text(?::jsonb)) group by network order by network`,
    [JSON.stringify(names)],
  )
  for (const row of left.rows) {
    options.progress?.(`the journal keeps ${row.finished} finished settlements of ${row.network}, a network not served`)
  }
}

/**
 * Unfinished rows (`claimed`, `submitted`, `confirmed`: read through their partial indexes) of a network, or of a token
 * of a served network, that this replica does not serve: no route would ever recover or finish them.
 */
const refuseUnservedRows = async (knex: Knex, networks: ReadonlyArray<JournalNetwork>): Promise<void> => {
  const served = networks.flatMap(({ name, assets }): Array<{ name: string; asset: string | null }> =>
    assets === undefined ? [{ name, asset: null }] : assets.map((asset) => ({ name, asset: canonical(asset) })),
  )
  const unserved = await knex.raw<{ rows: Array<{ network: string; asset: string; unfinished: number }> }>(
    `select network, asset, count(*)::integer as unfinished from settlements s
     where state in ('claimed', 'submitted', 'confirmed')
       and not exists (select 1 from jsonb_to_recordset(?::jsonb) as r(name text, asset text)
                       where r.name = s.network and (r.asset is null or r.asset = s.asset))
     group by network, asset order by network, asset`,
    [JSON.stringify(served)],
  )
  if (unserved.rows.length === 0) return
  const servedNames = new Set(networks.map((n) => n.name))
  throw new UnknownJournalNetworks(
    unserved.rows.map(({ network, asset, unfinished }) =>
      servedNames.has(network) ? { network, asset, unfinished } : { network, unfinished },
    ),
  )
}
