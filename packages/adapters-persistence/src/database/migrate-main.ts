import { createKnex } from './create-knex.js'
import { ensureJournalIndexes } from '../journal/journal-indexes.js'
import { migrateToLatest } from './migrate-to-latest.js'

// `npm run migrate`: the app migrates at start-up too; this is for running them ahead of a deploy.
const connectionString = process.env.DATABASE_URL
if (connectionString === undefined || connectionString === '') {
  console.error('DATABASE_URL: required to run the migrations')
  process.exit(1)
}
const knex = createKnex({ connectionString, timeoutMs: 30_000 })
try {
  const { applied, batch } = await migrateToLatest(knex, {
    onRetry: (reason, attempt) => console.error(`waiting for another migrator (${reason}), attempt ${attempt}`),
  })
  console.log(
    applied.length === 0
      ? 'migrations: already up to date'
      : `migrations: applied ${applied.join(', ')} (batch ${batch})`,
  )
  // Built outside the migrations' transaction, concurrently (docs/ARCHITECTURE.md §5, "Networks").
  const built = await ensureJournalIndexes(connectionString, { progress: (line) => console.log(line) })
  if (built.length === 0) console.log('indexes: already built')
} catch (error) {
  console.error(`migrations failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await knex.destroy()
}
