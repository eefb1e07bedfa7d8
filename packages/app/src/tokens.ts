import type * as chain from './modules/chain/chain-family.js'
import type * as d from '@x402-facilitator/domain'
import type { ServiceIdentifier } from 'inversify'
import type Koa from 'koa'
import type { Logger as PinoLogger } from 'pino'
import type * as config from './config.js'
import type * as infrastructure from './infrastructure.js'
import type * as observability from './observability.js'
import type * as probes from './probe-snapshot.js'
import type * as checks from './start-up-checks.js'

// DI tokens: each shares its name with the interface it stands for (the domain never sees them).

// What the start-up steps before the container made (modules/infrastructure-module.ts).
export const Config: ServiceIdentifier<config.Config> = Symbol.for('Config')
export const Logger: ServiceIdentifier<PinoLogger> = Symbol.for('Logger')
export const Infrastructure: ServiceIdentifier<infrastructure.Infrastructure> = Symbol.for('Infrastructure')
/** The store, as its adapter's factory made it (modules/persistence-module.ts). */
export const Store: ServiceIdentifier<d.Store> = Symbol.for('Store')
/**
 * Per signing key, in the order of `Infrastructure.facilitators`: whether this replica holds its advisory lock, and so
 * may settle with it.
 */
export const ReplicaLockGates: ServiceIdentifier<ReadonlyArray<d.ReplicaLockGate>> = Symbol.for('ReplicaLockGates')

// Metrics and probes (modules/observability-module.ts).
/** The process' registry and metrics, made once (start-facilitator.ts). */
export const ServiceMetrics: ServiceIdentifier<observability.ServiceMetrics> = Symbol.for('ServiceMetrics')
/** One route's view of them: its series labelled with its network. */
export const Observability: ServiceIdentifier<observability.Observability> = Symbol.for('Observability')
export const Readiness: ServiceIdentifier<d.Readiness> = Symbol.for('Readiness')
/** What `/readyz` and the gauges read from the chain and the database, refreshed in the background. */
export const ProbeSnapshot: ServiceIdentifier<probes.ProbeSnapshot> = Symbol.for('ProbeSnapshot')

// The chain's side (modules/chain-module.ts).
/** One network's chain as `OpenChain` made it: its adapters untimed, and what start-up and `/readyz` read. */
export type Chain = chain.Chain
export const Chain: ServiceIdentifier<Chain> = Symbol.for('Chain')
export interface ChainStart {
  /** The settings of the network's first token's route. */
  readonly config: config.Config
  readonly logger: PinoLogger
  /** The signing keys, and the network: its RPC URLs and tokens. */
  readonly infrastructure: infrastructure.SigningKeys & { readonly network: infrastructure.NetworkInfrastructure }
}

/**
 * What makes the chain: `openJsonRpcChain` (modules/json-rpc-chain-module.ts), or another adapter's. Swapping the chain
 * client is passing another one to `startFacilitator`; the rest of the composition does not change.
 */
export type OpenChain = (start: ChainStart) => Chain

/** The route's token on its network's chain (`Chain.tokens`). */
export const ChainToken: ServiceIdentifier<chain.ChainToken> = Symbol.for('ChainToken')
export const TokenReader: ServiceIdentifier<d.TokenReader> = Symbol.for('TokenReader')
export const SignatureVerifier: ServiceIdentifier<d.SignatureVerifier> = Symbol.for('SignatureVerifier')
/** One submitter per signing key (its nonces, broadcast queue, receipts), in `Infrastructure.facilitators`' order. */
export type SigningSubmitters = ReadonlyArray<{
  readonly account: d.EvmAddress
  readonly submitter: d.TransferSubmitter
}>
export const TransferSubmitters: ServiceIdentifier<SigningSubmitters> = Symbol.for('TransferSubmitters')
export const AddressChecksum: ServiceIdentifier<d.AddressChecksum> = Symbol.for('AddressChecksum')
export const ChainBlocks: ServiceIdentifier<d.ChainBlocks> = Symbol.for('ChainBlocks')

// The store's side (modules/store-module.ts).
export const SettlementJournal: ServiceIdentifier<d.SettlementJournal> = Symbol.for('SettlementJournal')
export const ReplicaLiveness: ServiceIdentifier<d.ReplicaLiveness> = Symbol.for('ReplicaLiveness')

// What the chain said at start-up, and the policy it makes (modules/policy-module.ts): bound asynchronously.
export const CheckedChain: ServiceIdentifier<checks.CheckedChain> = Symbol.for('CheckedChain')
export const FacilitatorPolicy: ServiceIdentifier<d.FacilitatorPolicy> = Symbol.for('FacilitatorPolicy')
/**
 * The batch settler (`SETTLER_ADDRESS`, or dev mode's) once checked, and `BATCH_MAX_ITEMS`; `undefined`: one
 * transaction per payment.
 */
export const Settler: ServiceIdentifier<d.Settler | undefined> = Symbol.for('Settler')

// What the use cases read besides the adapters (modules/use-cases-module.ts).
/** The route's use cases over its EVM signing keys: decodes EIP-3009 and Permit2 requests, settles their payments. */
export type RouteFacilitator = d.Facilitator<d.AnyPaymentRequest, d.PaymentRequest>
export const Facilitator: ServiceIdentifier<RouteFacilitator> = Symbol.for('Facilitator')
export const Clock: ServiceIdentifier<d.Clock> = Symbol.for('Clock')
/** Payers that made us spend gas for nothing (docs/ARCHITECTURE.md §5.7), one for the replica. */
export const PenaltyBox: ServiceIdentifier<d.PenaltyBox> = Symbol.for('PenaltyBox')
/** The settler's `itemGasLimit`, read once (undefined: no settler). */
export const SettlerItemGasLimit: ServiceIdentifier<bigint | undefined> = Symbol.for('SettlerItemGasLimit')
export const PayerExposure: ServiceIdentifier<d.PayerExposure> = Symbol.for('PayerExposure')
/** The operator's deny list (rule S1), one for the process (screening/deny-list-file.ts). */
export const AddressScreen: ServiceIdentifier<d.AddressScreen> = Symbol.for('AddressScreen')
export const RecoveryPolicy: ServiceIdentifier<d.RecoveryPolicy> = Symbol.for('RecoveryPolicy')
/** Rows that ended without their payment: logged at error level and counted (row-end-alerts.ts). */
export const RowEndAlerts: ServiceIdentifier<d.RowEndAlerts> = Symbol.for('RowEndAlerts')
/** `CONFIRMATIONS` and the rest of docs/ARCHITECTURE.md §5.6, made with the chain id (modules/policy-module.ts). */
export const FinalityPolicy: ServiceIdentifier<d.FinalityPolicy & { readonly headPollMs: number }> =
  Symbol.for('FinalityPolicy')
export const FinalityWatcher: ServiceIdentifier<d.FinalityWatcher> = Symbol.for('FinalityWatcher')
/** The route journal's note that a row was confirmed, which the finality watcher takes (confirmed-rows.ts). */
export const ConfirmedRows: ServiceIdentifier<d.ConfirmedRows> = Symbol.for('ConfirmedRows')

// The HTTP edge (modules/http-module.ts), over every route (start-facilitator.ts binds these in the first route's).
/** Every (network, token) served, in the configuration's order. */
export const PaymentRoutes: ServiceIdentifier<ReadonlyArray<d.PaymentRoute<d.FamilyRequest>>> =
  Symbol.for('PaymentRoutes')
/** `/readyz` over every network. */
export const ServedReadiness: ServiceIdentifier<d.Readiness> = Symbol.for('ServedReadiness')
export const HttpApp: ServiceIdentifier<Koa> = Symbol.for('HttpApp')
