import { makePgSettlementJournal, makeReplicaLiveness } from '@x402-facilitator/adapters-persistence'
import { ContainerModule } from 'inversify'
import { instrumented } from '../instrumented.js'
import * as tokens from '../tokens.js'

/** The ports `packages/adapters-persistence` implements, over the pools it is given; journal calls are timed and its statements counted. */
export const persistenceModule = new ContainerModule(({ bind }) => {
  bind(tokens.SettlementJournal).toDynamicValue((context) => {
    const { journalCalls, journalStatements } = context.get(tokens.Observability)
    const journal = makePgSettlementJournal(context.get(tokens.JournalPool), {
      timeoutMs: context.get(tokens.Config).DB_TIMEOUT_MS,
      onStatement: () => journalStatements.inc(),
    })
    return instrumented(journal, journalCalls)
  })
  bind(tokens.ReplicaLiveness).toDynamicValue((context) => ({
    isAlive: makeReplicaLiveness(context.get(tokens.Knex), { timeoutMs: context.get(tokens.Config).DB_TIMEOUT_MS }),
  }))
})
