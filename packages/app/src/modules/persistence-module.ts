import { makeKnexSettlementJournal, makeReplicaLiveness } from '@x402-facilitator/adapters-persistence'
import { ContainerModule } from 'inversify'
import type { Knex } from 'knex'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-persistence` implements, over one bounded knex pool. */
export const persistenceModule = (knex: Knex, timeoutMs: number) =>
  new ContainerModule(({ bind }) => {
    bind(tokens.Knex).toConstantValue(knex)
    bind(tokens.SettlementJournal).toConstantValue(makeKnexSettlementJournal(knex, { timeoutMs }))
    bind(tokens.ReplicaLiveness).toConstantValue({ isAlive: makeReplicaLiveness(knex, { timeoutMs }) })
  })
