// The limits phase: what the service's throughput is judged against, measured in the same run (bench/lib/limits.mjs):
// signature checks on one core, the node's ceiling, Postgres inserts. Each returns its part of the run's JSON.
import { numberToHex } from 'viem'
import { round, say } from '../basics.mjs'
import { measureNodeCeiling, measurePgInserts, measureRecoveries } from '../limits.mjs'
import { freshAccount } from '../payments.mjs'
import { cpuDelta, cpuSnapshot } from '../proc.mjs'

/** The run's `recoveries`: signature checks per second, over the verify payments or else any signed this run. */
export const measureSignatureChecks = async ({ domain }, { verifySigned, settleSigned, ceilingSigned }) => {
  say('  limit: signature checks on one core…')
  const r = await measureRecoveries({
    signed: verifySigned.length > 0 ? verifySigned.slice(0, 500) : settleSigned.concat(ceilingSigned).slice(0, 500),
    domain,
  })
  const recoveries = {
    perSecond: round(r.perSecond, 0),
    usEach: round(r.usEach, 1),
    viemVerifyTypedDataUs: round(r.viemVerifyTypedDataUs, 0),
  }
  say(
    `    ${recoveries.perSecond}/s (${recoveries.usEach} µs each; viem verifyTypedData ${recoveries.viemVerifyTypedDataUs} µs)`,
  )
  return recoveries
}

/** The run's `nodeCeiling`: pre-signed transfers from a fresh sender, or why it was skipped. */
export const measureCeiling = async ({ config, concurrency, chain, rpc, pids }, { ceilingSigned }) => {
  say(`  limit: the node's ceiling, ${config.ceiling} pre-signed transfers from one key at concurrency ${concurrency}…`)
  const sender = freshAccount()
  try {
    await rpc.call('anvil_setBalance', [sender.address, numberToHex(10n ** 21n)])
    const cpuBefore = cpuSnapshot({ anvil: pids.anvil })
    const r = await measureNodeCeiling({
      rpc,
      sender,
      signed: ceilingSigned,
      chainId: chain.chainId,
      token: chain.token,
      concurrency,
    })
    const anvilCpuMs = cpuDelta(cpuBefore, cpuSnapshot({ anvil: pids.anvil })).anvil
    const nodeCeiling = {
      transactions: r.transactions,
      perSecond: round(r.perSecond),
      sentPerSecond: round(r.sentPerSecond),
      seconds: round(r.elapsedMs / 1000, 2),
      failures: r.failures,
      unmined: r.unmined,
      blocks: r.blocks,
      errors: r.errors,
      ...(anvilCpuMs !== undefined ? { anvilCpuUsPerTransaction: round((anvilCpuMs * 1000) / r.transactions, 0) } : {}),
    }
    say(
      `    ${nodeCeiling.perSecond} tx/s mined (sent at ${nodeCeiling.sentPerSecond}/s), ${r.failures} failures${r.unmined ? `, ${r.unmined} NOT MINED: ${r.errors.join('; ')}` : ''}${nodeCeiling.anvilCpuUsPerTransaction !== undefined ? `; anvil CPU ${nodeCeiling.anvilCpuUsPerTransaction} µs per transaction` : ''}`,
    )
    return nodeCeiling
  } catch (error) {
    const skipped = { skipped: `the node would not fund a fresh sender (anvil_setBalance): ${error.message}` }
    say(`    skipped: ${skipped.skipped}`)
    return skipped
  }
}

/** The run's `pgInserts`: single-row inserts per second at the run's concurrency. */
export const measureInserts = async ({ config, concurrency, database }) => {
  say(`  limit: Postgres single-row inserts at concurrency ${concurrency}…`)
  const r = await measurePgInserts({ connectionString: database.limitUrl, concurrency, count: config.inserts })
  const pgInserts = { inserts: r.inserts, perSecond: round(r.perSecond, 0), failures: r.failures }
  say(`    ${pgInserts.perSecond}/s`)
  return pgInserts
}
