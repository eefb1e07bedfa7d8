import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'

/**
 * The other half of `backend-terminator.ts`: a thread of its own, so that it works while the test's thread is blocked.
 */
const { connectionString, cells } = workerData as { readonly connectionString: string; readonly cells: Int32Array }
const port = parentPort
if (port === null) throw new Error('backend-terminator-worker runs as a worker thread')

const client = new pg.Client({ connectionString, application_name: 'x402 test backend terminator' })
client.on('error', () => undefined)
await client.connect()

// One statement, so both columns read one snapshot of pg_stat_activity. `terminated`: the idle backends of $1 whose
// last query was $2, gone (pg_terminate_backend(pid, timeout) returns once the backend has exited, its FATAL sent).
// `serversTurn`: a backend is starting up without waiting for its client, or one of $1 runs a statement: its next
// message is coming, and the test's thread must not read it before the FATAL follows it.
const TERMINATE_IDLE = `
  select
    (select count(*) filter (where pg_terminate_backend(pid, 10000)) from pg_stat_activity
      where application_name = $1 and state = 'idle' and query = $2)::int as terminated,
    exists (select 1 from pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_backend_pid()
        and ((state = 'starting' and wait_event is distinct from 'ClientRead') or (application_name = $1 and state = 'active'))
    ) as "serversTurn"`

export interface TerminateRequest {
  readonly applicationName: string
  readonly lastQuery: string
  /**
   * Our client has sent its statement: wait for its backend (up to 10 s) even where it seems to wait for the client.
   */
  readonly statementSent: boolean
}

const terminateIdle = async ({ applicationName, lastQuery, statementSent }: TerminateRequest): Promise<number> => {
  for (const deadline = Date.now() + 10_000; ;) {
    const result = await client.query<{ terminated: number; serversTurn: boolean }>(TERMINATE_IDLE, [
      applicationName,
      lastQuery,
    ])
    const row = result.rows[0]
    if (row === undefined || row.terminated > 0) return row?.terminated ?? 0
    if (!row.serversTurn && !(statementSent && Date.now() < deadline)) return 0
  }
}

port.on('message', (request: TerminateRequest) => {
  const answer = (terminated: number) => {
    Atomics.store(cells, 1, terminated)
    Atomics.store(cells, 0, 1)
    Atomics.notify(cells, 0)
  }
  terminateIdle(request).then(answer, () => answer(-1))
})
port.postMessage('ready')
