import type { Knex } from 'knex'

/** A network this replica serves: its name (what rows hold in `network`) and its CAIP-2 id. */
export interface JournalNetwork {
  readonly name: string
  readonly chainId: string
}

/** Unfinished rows of networks no longer configured: starting would lose track of their money. */
export class UnknownJournalNetworks extends Error {
  constructor(readonly counts: ReadonlyArray<{ readonly network: string; readonly unfinished: number }>) {
    super(
      'the journal holds unfinished settlements of networks not configured: ' +
        counts.map((c) => `${c.network} (${c.unfinished})`).join(', ') +
        ': refusing to start. Configure those networks again, or finish their rows first.',
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
 * then fills `chain_id` where it is missing, a range of ids per statement. Refuses (`UnknownJournalNetworks`)
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
  const names = networks.map((n) => n.name)
  const left = await knex.raw<{ rows: Array<{ network: string; unfinished: number; finished: number }> }>(
    `select network, count(*) filter (where state in ('claimed', 'submitted', 'confirmed'))::integer as unfinished,
       count(*) filter (where state not in ('claimed', 'submitted', 'confirmed'))::integer as finished
     from settlements where chain_id is null
       and network not in (select jsonb_array_elements_text(?::jsonb)) group by network order by network`,
    [JSON.stringify(names)],
  )
  const unfinished = left.rows.filter((row) => row.unfinished > 0)
  if (unfinished.length > 0) throw new UnknownJournalNetworks(unfinished)
  for (const row of left.rows) {
    options.progress?.(`the journal keeps ${row.finished} finished settlements of ${row.network}, a network not served`)
  }
}
