import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type {
  Address,
  AddressChecksum,
  FacilitatorPolicy,
  InfrastructureFailure,
  JournalUnavailable,
  PaymentRequest,
  Settlement,
  SettlementQuery,
  SettleOptions,
  SettleOutcome,
  VerifyOutcome,
} from '@x402-facilitator/domain'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { Readiness } from './operations/probes.js'
import type { RateLimit } from './operations/rate-limit.js'

/** What the HTTP adapter needs from the rest of the service: use cases in, answers out. */
export interface HttpDeps {
  readonly policy: FacilitatorPolicy
  /**
   * Every account that signs settlements (a key pool: docs/ARCHITECTURE.md §5.8), listed in `/supported`'s x402 v2
   * `signers`; unset: `policy.facilitator` alone. The spec's `facilitator` field stays `policy.facilitator`.
   */
  readonly signers?: ReadonlyArray<Address>
  /** The network as CAIP-2 (`eip155:<chainId>`): what the x402 v2 dialect speaks, whatever `policy.network` is. */
  readonly caip2Network: string
  /** The token's EIP-712 name and version, advertised to x402 v2 clients (they sign over them). */
  readonly tokenDomain: { readonly name: string; readonly version: string }
  readonly addressChecksum: AddressChecksum
  readonly verifyPayment: (request: PaymentRequest) => TE.TaskEither<InfrastructureFailure, VerifyOutcome>
  readonly settlePayment: (
    request: PaymentRequest,
    options: SettleOptions,
  ) => TE.TaskEither<InfrastructureFailure, SettleOutcome>
  readonly lookUpSettlement: (query: SettlementQuery) => TE.TaskEither<JournalUnavailable, O.Option<Settlement>>
  /** Blocks on top of this one at the chain head last seen; undefined while no head is known. */
  readonly confirmationsOf?: (blockNumber: bigint) => number | undefined
  readonly logger: Logger
  /** [64 KiB] */
  readonly bodyLimitBytes?: number
  /** Seconds a 503 asks the client to wait. [2] */
  readonly retryAfterSeconds?: number
  /** When set, verify, settle and the lookups need `Authorization: Bearer <one of them>`. */
  readonly apiKeys?: ReadonlyArray<string>
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
}
