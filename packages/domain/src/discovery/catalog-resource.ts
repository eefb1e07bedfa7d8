import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { Clock } from '../ports/clock.js'
import { declarationRules } from './declaration-rules.js'
import type { DiscoveryCatalog, DiscoveryPage, DiscoveryQuery } from './discovery-catalog.js'
import type { CatalogOutcome, PaidTerms, ResourceDeclaration } from './resource-declaration.js'

export interface DiscoveryDeps {
  readonly catalog: DiscoveryCatalog
  readonly clock: Clock
  /** Entries per payee (a payee declaring ever more resources is refused past it). */
  readonly maxPerPayee: number
  /** An entry not paid for within this many milliseconds is no longer listed. */
  readonly maxAgeMs: number
}

const paidSince = ({ clock, maxAgeMs }: DiscoveryDeps) => new Date(clock.now().getTime() - maxAgeMs)

/**
 * A resource a payment settled for is catalogued from its declaration, if the declaration meets the rules and its
 * payee has room (docs/ARCHITECTURE.md §5.10). Only a settled payment gets here: a verify lists nothing, so the
 * catalog costs a payment to fill. The payer is never recorded.
 */
export const catalogResource =
  (deps: DiscoveryDeps) =>
  (declaration: ResourceDeclaration, paid: PaidTerms): TE.TaskEither<JournalUnavailable, CatalogOutcome> =>
    pipe(
      declarationRules(declaration),
      E.match(
        (reason): TE.TaskEither<JournalUnavailable, CatalogOutcome> => TE.right({ _tag: 'Rejected', reason }),
        () =>
          pipe(
            deps.catalog.record(
              { ...declaration, ...paid, lastSettledAt: deps.clock.now() },
              { maxPerPayee: deps.maxPerPayee, paidSince: paidSince(deps) },
            ),
            TE.map((recorded): CatalogOutcome =>
              recorded === 'recorded'
                ? { _tag: 'Catalogued' }
                : {
                    _tag: 'Rejected',
                    reason: `payTo ${paid.payTo} already has ${deps.maxPerPayee} resources in the catalog`,
                  },
            ),
          ),
      ),
    )

/** A page of the catalog: entries paid for within the age, newest payment first. */
export const listCatalog =
  (deps: DiscoveryDeps) =>
  (query: DiscoveryQuery): TE.TaskEither<JournalUnavailable, DiscoveryPage> =>
    deps.catalog.list(query, paidSince(deps))
