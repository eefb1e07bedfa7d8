/**
 * What a resource server declares of a paid resource for discovery (x402's `bazaar` extension, v1's `outputSchema`),
 * read from a settle's body by its dialect: the catalog's input (docs/ARCHITECTURE.md §5.10).
 */
export interface ResourceDeclaration {
  /** The canonical URL: its origin and path, or its route template (`/users/:id`), never its query. */
  readonly resource: string
  /** `http` or `mcp`, as the declaration's `info.input.type` says. */
  readonly type: string
  /** An HTTP resource's method, an MCP resource's tool: with the resource, what one entry is of. */
  readonly operation: string
  readonly x402Version: number
  readonly description?: string
  readonly mimeType?: string
  readonly serviceName?: string
  readonly tags?: ReadonlyArray<string>
  readonly iconUrl?: string
  /** The requirements the payment met, as the resource server stated them: the entry's `accepts`. */
  readonly accepts: Readonly<Record<string, unknown>>
  /** The extensions echoed to whoever discovers it: `bazaar` (its `info` and `schema`). */
  readonly extensions: Readonly<Record<string, unknown>>
}

/** What the settled payment says of the resource: who is paid, where and in what (filters of a listing). */
export interface PaidTerms {
  readonly payTo: string
  /** CAIP-2. */
  readonly network: string
  readonly asset: string
  readonly scheme: string
}

/**
 * One entry of the catalog: the latest declaration of (resource, operation) paid to one payee, and when a payment
 * for it last settled.
 */
export interface CatalogEntry extends ResourceDeclaration, PaidTerms {
  readonly lastSettledAt: Date
}

/** What the catalog says of one declaration: catalogued, or why not (x402's EXTENSION-RESPONSES `bazaar` status). */
export type CatalogOutcome = { readonly _tag: 'Catalogued' } | { readonly _tag: 'Rejected'; readonly reason: string }
