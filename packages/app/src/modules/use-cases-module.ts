import {
  evmPaymentEnds,
  evmRequestReader,
  evmSigningKeys,
  Facilitator,
  FinalityWatcher,
  makeInMemoryPayerExposure,
  systemClock,
} from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import { penaltyBoxOf, recoveryPolicyOf } from '../lane-policies.js'
import { RecoveryLoop } from '../recovery-loop.js'
import { makeRowEndAlerts } from '../row-end-alerts.js'
import * as tokens from '../tokens.js'

/** The domain's use cases (in `Facilitator`) and the recovery loop, with what they read besides the adapters' ports. */
export const useCasesModule = new ContainerModule(({ bind }) => {
  bind(tokens.Clock).toConstantValue(systemClock)
  bind(tokens.PayerExposure).toDynamicValue(() => makeInMemoryPayerExposure())
  bind(tokens.PenaltyBox).toDynamicValue((context) =>
    penaltyBoxOf(context.get(tokens.Config), context.get(tokens.Clock)),
  )
  bind(tokens.RecoveryPolicy).toDynamicValue((context) => recoveryPolicyOf(context.get(tokens.Config)))
  bind(tokens.RowEndAlerts).toDynamicValue((context) =>
    makeRowEndAlerts(context.get(tokens.Logger), context.get(tokens.Observability)),
  )
  bind(tokens.Facilitator).toDynamicValue(async (context) => {
    const policy = await context.getAsync(tokens.FacilitatorPolicy)
    const clock = context.get(tokens.Clock)
    const liveness = await context.getAsync(tokens.ReplicaLiveness)
    const evm = {
      signatures: await context.getAsync(tokens.SignatureVerifier),
      token: await context.getAsync(tokens.TokenReader),
      settler: await context.getAsync(tokens.Settler),
      keyReads: (await context.getAsync(tokens.Chain)).keyReads,
      itemGasLimit: await context.getAsync(tokens.SettlerItemGasLimit),
    }
    return new Facilitator({
      policy,
      clock,
      exposure: context.get(tokens.PayerExposure),
      journal: await context.getAsync(tokens.SettlementJournal),
      keys: evmSigningKeys(evm, await context.getAsync(tokens.TransferSubmitters)),
      gates: await context.getAsync(tokens.ReplicaLockGates),
      readRequest: evmRequestReader({ policy, clock, liveness }),
      liveness,
      recovery: context.get(tokens.RecoveryPolicy),
      logger: context.get(tokens.Logger),
      rowEnds: context.get(tokens.RowEndAlerts),
      penalties: context.get(tokens.PenaltyBox),
      screen: await context.getAsync(tokens.AddressScreen),
    })
  })
  bind(RecoveryLoop).toSelf()
  bind(tokens.FinalityWatcher).toDynamicValue(async (context) => {
    const facilitator = await context.getAsync(tokens.Facilitator)
    const { headPollMs, ...finality } = await context.getAsync(tokens.FinalityPolicy)
    const watcher = new FinalityWatcher({
      lanes: facilitator.lanes.map((lane) => ({
        policy: lane.deps.policy,
        submitter: lane.deps.submitter,
        finish: lane.finish,
        mayAct: () => lane.gate.lockHeld,
      })),
      journal: context.get(tokens.SettlementJournal),
      ends: evmPaymentEnds(context.get(tokens.TokenReader)),
      blocks: context.get(tokens.ChainBlocks),
      finality,
      headPollMs,
      logger: context.get(tokens.Logger),
      violations: context.get(tokens.Observability).finalityViolations,
      liveness: context.get(tokens.ReplicaLiveness),
      orphansEveryMs: context.get(tokens.Config).RECOVERY_INTERVAL_MS,
      confirmedRows: context.get(tokens.ConfirmedRows),
    })
    for (const lane of facilitator.lanes) lane.followFinality(watcher)
    return watcher
  })
})
