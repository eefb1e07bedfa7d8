import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type {
  Address,
  CatalogOutcome,
  DiscoveryPage,
  DiscoveryQuery,
  HideKey,
  PaidTerms,
  ResourceDeclaration,
  AddressChecksum,
  InfrastructureFailure,
  JournalUnavailable,
  MechanismExplainer,
  FamilyRequest,
  ReceiptAttestor,
  DeliveryQuery,
  DeliveryRecord,
  Settlement,
  SettleOptions,
  ServedNetwork,
  SettleOutcome,
  Readiness,
  VerifyOutcome,
} from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { RateLimit } from './operations/rate-limit.js'

/** A lookup by authorization: on the network named (its spec name), or on every network served. */
export interface AuthorizationLookup {
  /** An EVM address, or a Solana one (base58). */
  readonly payer: string
  /** An EVM authorization's nonce, or a Solana payment's message digest. */
  readonly nonce: string
  readonly network?: string
}

/** The discovery catalog's use cases (docs/ARCHITECTURE.md §5.10), when it is on. */
export interface DiscoveryHttpDeps {
  /** A settled payment's declaration into the catalog, or why not. */
  readonly catalogResource: (
    declaration: ResourceDeclaration,
    paid: PaidTerms,
  ) => TE.TaskEither<JournalUnavailable, CatalogOutcome>
  readonly listResources: (query: DiscoveryQuery) => TE.TaskEither<JournalUnavailable, DiscoveryPage>
  /** How long a settle's answer waits for its catalog write before saying `processing` (the write goes on). */
  readonly catalogWaitMs: number
  /** Hides (or shows again) a resource's entries: how many there were. */
  readonly hideResource: (key: HideKey, hidden: boolean) => TE.TaskEither<JournalUnavailable, number>
}

/** What the HTTP adapter needs from the rest of the service: use cases in, answers out. */
export interface HttpDeps {
  /**
   * What is served, in order: the first network's first token is the default (docs/ARCHITECTURE.md §4). Its signers
   * (a key pool: §5.8) are listed in `/supported`'s x402 v2 `signers`.
   */
  readonly networks: ReadonlyArray<ServedNetwork>
  /** The spec's one `facilitator` address in `/supported`. */
  readonly facilitator: Address
  readonly addressChecksum: AddressChecksum
  /** Verify and settle of any (network, asset): the service routes them; unserved ones are refused by its rules. */
  readonly verifyPayment: (request: FamilyRequest) => TE.TaskEither<InfrastructureFailure, VerifyOutcome>
  readonly settlePayment: (
    request: FamilyRequest,
    options: SettleOptions,
  ) => TE.TaskEither<InfrastructureFailure, SettleOutcome>
  /** By any attempt's transaction hash. */
  readonly lookUpSettlement: (query: {
    readonly _tag: 'ByTxHash'
    /** An EVM transaction hash, or a Solana transaction's signature. */
    readonly txHash: string
  }) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  /** Every settlement of the authorization (one per network and asset it was settled on), none when unknown. */
  readonly lookUpSettlementsByAuthorization: (
    query: AuthorizationLookup,
  ) => TE.TaskEither<JournalUnavailable, ReadonlyArray<Settlement>>
  /** Blocks on top of this one at `network`'s head last seen (its spec name); undefined while no head is known. */
  readonly confirmationsOf?: (network: string, blockNumber: bigint) => number | undefined
  /**
   * Signs the receipt of every settle success and of a lookup's settled row; `/supported` publishes its accounts.
   * Unset: no receipts (docs/ARCHITECTURE.md §4).
   */
  readonly attestor?: ReceiptAttestor
  readonly logger: Logger
  /** [64 KiB] */
  readonly bodyLimitBytes?: number
  /** Seconds a 503 asks the client to wait. [2] */
  readonly retryAfterSeconds?: number
  /** The payment mechanism's wording of its own refusals (the EVM's: `explainMechanismFailure`). */
  readonly explainMechanismRefusal: MechanismExplainer
  /** When set, verify, settle and the lookups need `Authorization: Bearer <one of them>`. */
  readonly apiKeys?: ReadonlyArray<string>
  /**
   * The payees each API key may settle `upto` for (whoever settles `upto` picks the amount charged); a key not in the
   * map may settle none. Without API keys, `uptoWithoutKeys` says.
   */
  readonly uptoPayees?: ReadonlyMap<string, ReadonlyArray<Address>>
  /**
   * Without API keys, whether `upto` payments are settled at all [false]: whoever settles one picks the amount
   * charged, up to its maximum, so on a real network an open facilitator refuses them unless told (dev mode: true).
   */
  readonly uptoWithoutKeys?: boolean
  /** Per key (or client address) on verify and settle; unset: no limit. */
  readonly rateLimit?: RateLimit
  /**
   * How many proxies you trust in front of the service: the client address is the n-th of X-Forwarded-For from the
   * right (the one the outermost trusted proxy added); what a client writes to the left of it is ignored. [0: the
   * socket's]
   */
  readonly trustedProxies?: number
  /** Origins allowed by CORS; unset: no CORS headers at all. */
  readonly corsOrigins?: ReadonlyArray<string>
  /** Where `/metrics` reads from and the HTTP metrics go. */
  readonly metrics?: Registry
  /** What `/readyz` checks. */
  readonly readiness?: Readiness
  /** The operator's routes (webhook deliveries); unset: not served. */
  readonly operator?: OperatorDeps
  /** Bazaar discovery (`DISCOVERY`); unset: nothing is catalogued and the discovery routes answer 404. */
  readonly discovery?: DiscoveryHttpDeps
}

/** docs/API.md, "Operator": what the operator's token may read. */
export interface OperatorDeps {
  readonly token: string
  readonly recentDeliveries: (query: DeliveryQuery) => Promise<ReadonlyArray<DeliveryRecord>>
}
