import type * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type {
  FacilitatorPolicy,
  InfrastructureFailure,
  MalformedRequest,
  PaymentRequest,
  SettleOptions,
  SettleOutcome,
  VerifyOutcome,
} from '@x402-facilitator/domain'
import type { Logger } from 'pino'

/** What the HTTP adapter needs from the rest of the service: decoded requests in, use-case outcomes out. */
export interface HttpDeps {
  readonly policy: FacilitatorPolicy
  readonly decodePaymentRequest: (body: unknown) => E.Either<MalformedRequest, PaymentRequest>
  readonly verifyPayment: (request: PaymentRequest) => TE.TaskEither<InfrastructureFailure, VerifyOutcome>
  readonly settlePayment: (request: PaymentRequest, options: SettleOptions) => TE.TaskEither<InfrastructureFailure, SettleOutcome>
  readonly logger: Logger
  /** [64 KiB] */
  readonly bodyLimitBytes?: number
  /** Seconds a 503 asks the client to wait. [2] */
  readonly retryAfterSeconds?: number
}
