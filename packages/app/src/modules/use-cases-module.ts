import {
  evmPaymentEnds,
  evmRequestReader,
  evmSigningKeys,
  Facilitator,
  FinalityWatcher,
  makeInMemoryPayerExposure,
  makePenaltyBox,
  systemClock,
} from '@x402-facilitator/domain'
import { ContainerModule } from 'inversify'
import { RecoveryLoop } from '../recovery-loop.js'
import { makeRowEndAlerts } from '../row-end-alerts.js'
import * as tokens from '../tokens.js'

/** The domain's use cases (in `Facilitator`) and the recovery loop, with what they read besides the adapters' ports. */
export const useCasesModule = new ContainerModule(({ bind }) => {
  bind(tokens.Clock).toConstantValue(systemClock)
  bind(tokens.PayerExposure).toDynamicValue(() => makeInMemoryPayerExposure())
  bind(tokens.PenaltyBox).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    return makePenaltyBox(context.get(tokens.Clock), {
      penaltyMs: config.PAYER_PENALTY_SECONDS * 1000,
      lostGasBudget: config.CONTRACT_PAYER_LOST_GAS_BUDGET,
      loneLostGasBudget: config.CONTRACT_PAYER_LONE_LOST_GAS_BUDGET,
      fundsLostGasBudget: config.PAYER_FUNDS_LOST_GAS_BUDGET,
    })
  })
  bind(tokens.RecoveryPolicy).toDynamicValue((context) => {
    const config = context.get(tokens.Config)
    // A row younger than the longest a settle may still wait for its receipt (and for its send) is that settle's:
    // recovery must not replace what it waits for, nor end the row before the settle has kept its amount in flight.
    const settleMayWaitMs = config.RECEIPT_TIMEOUT_SECONDS * 1000 + config.RPC_TIMEOUT_MS
    return {
      minAgeMs: Math.max(config.RECOVERY_INTERVAL_MS, settleMayWaitMs),
      claimTimeoutMs: config.CLAIM_TIMEOUT_MS,
      replaceAfterMs: config.REPLACE_AFTER_MS,
      batchSize: 100,
      unsettleableAfterMs: config.UNSETTLEABLE_AFTER_MS,
      unsettleableAfterTries: 3,
      refusalBackoffMs: 1_000,
    }
  })
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
