import { expect } from 'chai'
import { EventEmitter } from 'node:events'
import type pg from 'pg'
import { makeStatementRunner } from '../src/prepared-statements.js'

/**
 * A pooled client whose statement completes and whose connection then reports Postgres's FATAL in the same read (as
 * when the server shuts down right after answering): pg emits the error before the statement's awaiter runs.
 */
const clientDyingAfterItsAnswer = () => {
  const client = Object.assign(new EventEmitter(), {
    released: [] as unknown[],
    /** Whether the error found nobody listening: an EventEmitter then throws it, and the process dies. */
    unheard: false,
    query: () => {
      const answered = Promise.resolve({ rows: [{ ok: 1 }], rowCount: 1 })
      // Registered before the runner's `await`, so it runs first: the error comes before the awaiter resumes.
      void answered.then(() => {
        client.unheard = client.listenerCount('error') === 0
        if (!client.unheard) client.emit('error', new Error('terminating connection due to administrator command'))
      })
      return answered
    },
    // The pool listens again once the client is back (pg-pool's idle listener).
    release: (destroy?: unknown) => {
      client.released.push(destroy)
      client.on('error', () => undefined)
    },
  })
  return client
}

describe('the journal statement runner', () => {
  it("a FATAL read with the statement's answer neither crashes the process nor loses the answer", async () => {
    const client = clientDyingAfterItsAnswer()
    const pool = { connect: async () => client } as unknown as pg.Pool
    const result = await makeStatementRunner(pool)('select 1 as ok', [])
    expect(result.rows).to.deep.equal([{ ok: 1 }])
    expect(client.unheard).to.equal(false)
    expect(client.released).to.have.length(1)
    expect(client.listenerCount('error')).to.equal(1)
  })
})
