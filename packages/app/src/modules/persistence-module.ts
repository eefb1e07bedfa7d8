import { makeKnexSettlementJournal, makeReplicaLiveness } from '@x402-facilitator/adapters-persistence'
import { ContainerModule } from 'inversify'
import type { Knex } from 'knex'
import type { Histogram } from 'prom-client'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-persistence` implements, over one bounded knex pool; journal calls are timed. */
export const persistenceModule = (knex: Knex, timeoutMs: number, journalCalls: Histogram<'call' | 'outcome'>) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Knex).toConstantValue(knex)
    bind(tokens.SettlementJournal).toConstantValue(instrumented(makeKnexSettlementJournal(knex, { timeoutMs }), journalCalls))
    bind(tokens.ReplicaLiveness).toConstantValue({ isAlive: makeReplicaLiveness(knex, { timeoutMs }) })
  })
