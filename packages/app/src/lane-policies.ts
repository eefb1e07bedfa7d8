import { makePenaltyBox, type Clock, type PenaltyBox, type RecoveryPolicy } from '@x402-facilitator/domain'
import type { Config } from './config.js'

/** What a route's recovery reads (docs/ARCHITECTURE.md §5.5), whichever chain family it settles on. */
export const recoveryPolicyOf = (config: Config): RecoveryPolicy => {
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
}

/** A route's penalty box (docs/ARCHITECTURE.md §5.7). */
export const penaltyBoxOf = (config: Config, clock: Clock): PenaltyBox =>
  makePenaltyBox(clock, {
    penaltyMs: config.PAYER_PENALTY_SECONDS * 1000,
    lostGasBudget: config.CONTRACT_PAYER_LOST_GAS_BUDGET,
    loneLostGasBudget: config.CONTRACT_PAYER_LONE_LOST_GAS_BUDGET,
    fundsLostGasBudget: config.PAYER_FUNDS_LOST_GAS_BUDGET,
  })
