import { svmCodec } from '@x402-facilitator/adapters-chain'
import {
  Facilitator,
  makeInMemoryPayerExposure,
  svmRequestReader,
  svmSigningKeys,
  systemClock,
  type AddressScreen,
  type FacilitatorPolicy,
  type PaymentRoute,
  type Readiness,
  type ReplicaLockGate,
  type Store,
  type SvmPaymentRequest,
  type SvmPaymentWire,
} from '@x402-facilitator/domain'
import type { Logger as PinoLogger } from 'pino'
import type { Registry } from 'prom-client'
import type { Config } from '../../config.js'
import { penaltyBoxOf, recoveryPolicyOf } from '../../lane-policies.js'
import { RecoveryLoop } from '../../recovery-loop.js'
import type { ResourceStack } from '../../resource-stack.js'
import { startSvmFinality } from './svm-finality.js'
import type { OpenedSvmNetwork } from './opened-svm-network.js'
import { svmReadiness } from './svm-readiness.js'

export type SvmRoute = PaymentRoute<SvmPaymentWire> & {
  readonly facilitator: Facilitator<SvmPaymentWire, SvmPaymentRequest>
}

/**
 * Each (Solana network, mint) as a route (docs/ARCHITECTURE.md §1): the SVM mechanism's lanes over the core's
 * facilitator, one per fee payer, the network's rows in its own scoped journal; its recovery pass at start-up, then its
 * recovery loop and its finality follower, stopped by the resource stack.
 */
export const startSvmRoutes = async (
  network: OpenedSvmNetwork,
  deps: {
    readonly config: Config
    readonly logger: PinoLogger
    readonly store: Store
    readonly gates: ReadonlyArray<ReplicaLockGate>
    readonly screen: AddressScreen
    readonly servedNetworks: ReadonlyArray<string>
    readonly resources: ResourceStack
    readonly registry: Registry
  },
): Promise<{ readonly routes: ReadonlyArray<SvmRoute>; readonly readiness: Readiness }> => {
  const { config, logger, store, gates, resources } = deps
  const clock = systemClock
  const feePayers = new Set(network.feePayers.map((key) => key.address))
  const routes: SvmRoute[] = []
  for (const token of network.tokens) {
    const policy: FacilitatorPolicy = {
      network: network.caip2,
      servedNetworks: deps.servedNetworks,
      asset: { address: token.mint, symbol: token.symbol, decimals: token.decimals },
      facilitator: network.feePayers[0]!.address,
      validityMarginSeconds: 0n,
      receiptTimeoutMs: config.RECEIPT_TIMEOUT_SECONDS * 1000,
      minAmount: token.minAmount,
    }
    const journal = store.journalFor({ chainId: network.caip2, asset: token.mint })
    const facilitator = new Facilitator<SvmPaymentWire, SvmPaymentRequest>({
      policy,
      clock,
      exposure: makeInMemoryPayerExposure(),
      journal,
      screen: deps.screen,
      liveness: store.livenessFor(network.caip2),
      recovery: recoveryPolicyOf(config),
      penalties: penaltyBoxOf(config, clock),
      logger: logger.child({ network: network.caip2, asset: token.symbol }),
      keys: svmSigningKeys(
        {
          chain: network.chain,
          minLamports: config.SOLANA_MIN_FEE_PAYER_LAMPORTS,
          statusPollMs: config.SOLANA_STATUS_POLL_MS,
        },
        network.feePayers,
      ),
      gates,
      readRequest: svmRequestReader({ policy, codec: svmCodec, feePayers, limits: {} }),
    })
    const recovery = new RecoveryLoop(facilitator, logger, clock)
    await recovery.runOnce({ startUp: true })
    recovery.start(config.RECOVERY_INTERVAL_MS)
    for (const gate of gates) gate.onRegained(() => void recovery.runOnce())
    resources.push('Solana recovery loop', () => recovery.stop())
    const stopFinality = startSvmFinality({
      journal,
      chain: network.chain,
      owners: [...feePayers],
      clock,
      pollMs: config.HEAD_POLL_MS ?? 1_000,
      logger,
    })
    resources.push('Solana finality', stopFinality)
    routes.push({
      network: network.caip2,
      caip2: network.caip2,
      asset: token.mint,
      token: { address: token.mint, symbol: token.symbol, decimals: token.decimals, minAmount: token.minAmount },
      facilitator,
      confirmationsOf: () => undefined,
    })
  }
  return { routes, readiness: svmReadiness(network, config, resources, deps.registry) }
}

/** Every Solana network's routes, in order, and each network's readiness (`/readyz` names it). */
export const startSvmNetworks = async (
  networks: ReadonlyArray<OpenedSvmNetwork>,
  deps: Omit<Parameters<typeof startSvmRoutes>[1], 'gates'> & {
    readonly gates: ReadonlyMap<string, ReadonlyArray<ReplicaLockGate>>
  },
): Promise<{
  readonly routes: ReadonlyArray<SvmRoute>
  readonly readiness: ReadonlyArray<{ readonly network: string; readonly readiness: Readiness }>
}> => {
  const routes: SvmRoute[] = []
  const readiness: Array<{ readonly network: string; readonly readiness: Readiness }> = []
  for (const network of networks) {
    const started = await startSvmRoutes(network, { ...deps, gates: deps.gates.get(network.caip2)! })
    routes.push(...started.routes)
    readiness.push({ network: network.caip2, readiness: started.readiness })
  }
  return { routes, readiness }
}
