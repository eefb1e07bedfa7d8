import { makeKnexSettlementJournal, makeReplicaLiveness } from '@x402-facilitator/adapters-persistence'
import { ContainerModule } from 'inversify'
import type { Knex } from 'knex'
import type { Counter, Histogram } from 'prom-client'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-persistence` implements, over one bounded knex pool; journal calls are timed and its statements counted. */
export const persistenceModule = (knex: Knex, timeoutMs: number, journalCalls: Histogram<'call' | 'outcome'>, journalStatements: Counter) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Knex).toConstantValue(knex)
    bind(tokens.SettlementJournal).toConstantValue(instrumented(makeKnexSettlementJournal(knex, { timeoutMs, onStatement: () => journalStatements.inc() }), journalCalls))
    bind(tokens.ReplicaLiveness).toConstantValue({ isAlive: makeReplicaLiveness(knex, { timeoutMs }) })
  })
