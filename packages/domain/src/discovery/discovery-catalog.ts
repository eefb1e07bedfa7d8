import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { JournalUnavailable } from '../model/failures.js'
import type { CatalogEntry } from './resource-declaration.js'

/** Which entries a listing or a search asks for; every filter optional (docs/API.md, Bazaar discovery). */
export interface DiscoveryQuery {
  readonly type?: string
  readonly payTo?: string
  /** CAIP-2. */
  readonly network?: string
  readonly asset?: string
  readonly scheme?: string
  /** Full-text search of descriptions and resource URLs (a search's `query`). */
  readonly text?: string
  readonly limit: number
  readonly offset: number
}

/** Which entries an operator hides: a resource's, one operation's of it, one payee's. */
export interface HideKey {
  readonly resource: string
  readonly operation?: string
  readonly payTo?: string
}

export interface DiscoveryPage {
  readonly entries: ReadonlyArray<CatalogEntry>
  /** Entries matching the query, over every page. */
  readonly total: number
}

/**
 * The catalog of paid resources (Postgres in production). Entries not paid for since `paidSince` are not listed; a
 * hidden entry never is, and a declaration of it keeps it hidden.
 */
export interface DiscoveryCatalog {
  /**
   * Records the entry, replacing the earlier declaration of its (resource, operation) by the same payee — a payment
   * to another payee adds that payee's own entry, so nobody's declaration replaces another's —; `payee_full` when its
   * payee already has `maxPerPayee` other entries paid since `paidSince` (the entry is not recorded). Entries not paid
   * for since `paidSince` and not hidden are dropped as it writes (a bounded number each time).
   */
  readonly record: (
    entry: CatalogEntry,
    bounds: { readonly maxPerPayee: number; readonly paidSince: Date },
  ) => TE.TaskEither<JournalUnavailable, 'recorded' | 'payee_full'>
  /** Newest payment first, then by resource, operation and payee: a stable order for paging. */
  readonly list: (query: DiscoveryQuery, paidSince: Date) => TE.TaskEither<JournalUnavailable, DiscoveryPage>
  /**
   * Hides or shows again every entry of a resource (one operation's, one payee's when named); how many there were. A
   * new entry of a (resource, operation) that has a hidden one, whoever declares it, is hidden too.
   */
  readonly hide: (key: HideKey, hidden: boolean) => TE.TaskEither<JournalUnavailable, number>
}
