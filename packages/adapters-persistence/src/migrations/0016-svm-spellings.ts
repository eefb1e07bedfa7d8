import type { Knex } from 'knex'

/**
 * A Solana row (docs/ARCHITECTURE.md §1): its addresses are base58, its identity a message digest (hex without `0x`),
 * its transactions' ids base58 signatures and their bytes base64. Each check holds a row to its own family's spelling,
 * told by its chain id; an EVM row's checks are exactly what they were. Expand only: the previous release writes EVM
 * rows alone, which pass as before. Each is added `not valid`: every row there was held to its EVM form already, which
 * the new check keeps, so no scan of the table holds its lock.
 */
const base58 = (column: string, min: number, max: number) => `${column} ~ '^[1-9A-HJ-NP-Za-km-z]{${min},${max}}$'`
const address = (column: string) => `${column} ~ '^0x[0-9a-f]{40}$'`
const hash = (column: string) => `${column} ~ '^0x[0-9a-f]{64}$'`
// No `?` in a statement: knex would read it as a placeholder.
const base64 = (column: string) => `${column} ~ '^([A-Za-z0-9+/]{4})+([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=){0,1}$'`
const solana = `chain_id like 'solana:%'`

/** Per table, each check's name, its EVM form (as created) and its SVM form. */
const checks: ReadonlyArray<readonly [table: string, name: string, evm: string, svm: string]> = [
  ['settlements', 'settlements_asset_check', address('asset'), base58('asset', 32, 44)],
  ['settlements', 'settlements_payer_check', address('payer'), base58('payer', 32, 44)],
  ['settlements', 'settlements_payee_check', address('payee'), base58('payee', 32, 44)],
  ['settlements', 'settlements_owner_check', address('owner'), base58('owner', 32, 44)],
  ['settlements', 'settlements_nonce_space_check', address('nonce_space'), base58('nonce_space', 32, 44)],
  ['settlements', 'settlements_nonce_check', hash('nonce'), `nonce ~ '^[0-9a-f]{64}$'`],
  ['settlements', 'settlements_signature_check', `signature ~* '^0x[0-9a-f]*$'`, base64('signature')],
  ['settlements', 'settlements_tx_hash_check', hash('tx_hash'), base58('tx_hash', 64, 88)],
  ['settlements', 'settlements_block_hash_check', hash('block_hash'), base58('block_hash', 32, 44)],
]

/** Attempts carry no chain id: each spelling is whole (hex, or base58 and base64), never a mix. */
const attemptChecks: ReadonlyArray<readonly [name: string, check: string]> = [
  ['settlement_attempts_tx_hash_check', `${hash('tx_hash')} or ${base58('tx_hash', 64, 88)}`],
  ['settlement_attempts_raw_check', `raw ~* '^0x[0-9a-f]+$' or ${base64('raw')}`],
]

export const svmSpellings = {
  name: '0016-svm-spellings',
  up: async (knex: Knex): Promise<void> => {
    for (const [table, name, evm, svm] of checks) {
      await knex.raw(`alter table ${table} drop constraint ${name}`)
      await knex.raw(`alter table ${table} add constraint ${name}
        check (case when ${solana} then ${svm} else ${evm} end) not valid`)
    }
    for (const [name, check] of attemptChecks) {
      await knex.raw(`alter table settlement_attempts drop constraint ${name}`)
      await knex.raw(`alter table settlement_attempts add constraint ${name} check (${check}) not valid`)
    }
  },
}
