import type { JournalScope } from '@x402-facilitator/domain'
import { canonical } from './journal-sql.js'

/**
 * A `where` prefix over `s` (ending in `and`, or empty) and the values of its `?`, in order: what keeps a scoped
 * journal's reads and writes to its chain and token (docs/ARCHITECTURE.md §5, "Networks").
 */
export interface ScopeFilter {
  readonly sql: string
  readonly values: ReadonlyArray<unknown>
}

const none: ScopeFilter = { sql: '', values: [] }

/** To the route's chain and token: what is keyed by owner. */
export const routeFilter = (scope?: JournalScope): ScopeFilter =>
  scope === undefined
    ? none
    : { sql: 's.chain_id = ? and s.asset = ? and ', values: [scope.chainId, canonical(scope.asset)] }

/** To the route's chain only: an account's nonces, shared by its tokens on one chain. */
export const chainFilter = (scope?: JournalScope): ScopeFilter =>
  scope === undefined ? none : { sql: 's.chain_id = ? and ', values: [scope.chainId] }
