import type * as chain from '@x402-facilitator/adapters-chain'
import type * as d from '@x402-facilitator/domain'
import type { ServiceIdentifier } from 'inversify'
import type * as knex from 'knex'
import type { Logger as PinoLogger } from 'pino'
import type { Config as AppConfig } from './config.js'

/** DI tokens: each shares its name with the interface it stands for (the domain never sees them). */
export const Config: ServiceIdentifier<AppConfig> = Symbol.for('Config')
export const Logger: ServiceIdentifier<PinoLogger> = Symbol.for('Logger')
export const Policy: ServiceIdentifier<d.FacilitatorPolicy> = Symbol.for('FacilitatorPolicy')
export const Clock: ServiceIdentifier<d.Clock> = Symbol.for('Clock')
export const PayerExposure: ServiceIdentifier<d.PayerExposure> = Symbol.for('PayerExposure')
export const RecoveryPolicy: ServiceIdentifier<d.RecoveryPolicy> = Symbol.for('RecoveryPolicy')
export const TokenReader: ServiceIdentifier<d.TokenReader> = Symbol.for('TokenReader')
export const SignatureVerifier: ServiceIdentifier<d.SignatureVerifier> = Symbol.for('SignatureVerifier')
export const TransferSubmitter: ServiceIdentifier<chain.ViemTransferSubmitter> = Symbol.for('TransferSubmitter')
export const AddressChecksum: ServiceIdentifier<d.AddressChecksum> = Symbol.for('AddressChecksum')
export const ChainRpc: ServiceIdentifier<chain.ChainRpc> = Symbol.for('ChainRpc')
export const SettlementJournal: ServiceIdentifier<d.SettlementJournal> = Symbol.for('SettlementJournal')
export const ReplicaLiveness: ServiceIdentifier<d.ReplicaLiveness> = Symbol.for('ReplicaLiveness')
/** What the chain said at start-up: its CAIP-2 name and the token's EIP-712 name and version. */
export interface ChainIdentity {
  readonly caip2: string
  readonly tokenDomain: { readonly name: string; readonly version: string }
}
export const ChainIdentity: ServiceIdentifier<ChainIdentity> = Symbol.for('ChainIdentity')
/** What the operator set for the HTTP edge: keys, limits, proxy, CORS, and what /metrics and /readyz read. */
export interface HttpOperations {
  readonly apiKeys: ReadonlyArray<string>
  readonly rateLimit?: { readonly points: number; readonly windowSeconds: number }
  readonly trustProxy: boolean
  readonly corsOrigins?: ReadonlyArray<string>
  readonly metrics: import('prom-client').Registry
  readonly readiness: import('@x402-facilitator/adapters-http').Readiness
}
export const HttpOperations: ServiceIdentifier<HttpOperations> = Symbol.for('HttpOperations')
export const Knex: ServiceIdentifier<knex.Knex> = Symbol.for('Knex')
