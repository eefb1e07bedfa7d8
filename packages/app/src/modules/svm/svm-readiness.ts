import * as E from 'fp-ts/lib/Either.js'
import type { Readiness, ReadinessCheck } from '@x402-facilitator/domain'
import { Gauge, type Registry } from 'prom-client'
import type { Config } from '../../config.js'
import type { ResourceStack } from '../../resource-stack.js'
import type { OpenedSvmNetwork } from './opened-svm-network.js'

/**
 * `/readyz` of a Solana network (docs/OPERATIONS.md): its cluster answers, and every fee payer holds at least
 * `SOLANA_MIN_FEE_PAYER_LAMPORTS` (below it, that key sends nothing); `/metrics` has each fee payer's lamports. Read
 * every `PROBE_REFRESH_MS` in the background.
 */
export const svmReadiness = (
  network: OpenedSvmNetwork,
  config: Config,
  resources: ResourceStack,
  registry: Registry,
): Readiness => {
  const gauge = lamportsGauge(registry)
  let checks: Record<string, ReadinessCheck> | undefined
  let readAt = 0
  const min = config.SOLANA_MIN_FEE_PAYER_LAMPORTS
  const read = async () => {
    const balances = await Promise.all(
      network.feePayers.map(async ({ address }) => ({ address, lamports: await network.chain.lamports(address)() })),
    )
    for (const { address, lamports } of balances)
      if (E.isRight(lamports)) gauge.set({ network: network.caip2, account: address }, Number(lamports.right))
    const unreachable = balances.find((b) => E.isLeft(b.lamports))
    const low = balances.filter((b) => E.isRight(b.lamports) && b.lamports.right < min)
    checks = {
      chain:
        unreachable !== undefined && E.isLeft(unreachable.lamports)
          ? { ok: false, detail: unreachable.lamports.left.reason }
          : { ok: true, detail: `${network.caip2} answers` },
      gas:
        low.length > 0
          ? { ok: false, detail: `fee payer ${low.map((b) => b.address).join(', ')} below ${min} lamports` }
          : { ok: unreachable === undefined, detail: `every fee payer holds at least ${min} lamports` },
    }
    readAt = Date.now()
  }
  const timer = setInterval(() => void read(), config.PROBE_REFRESH_MS)
  timer.unref()
  resources.push('Solana readiness', async () => clearInterval(timer))
  void read()
  return async () => ({
    checks: checks ?? { chain: { ok: false, detail: 'not read yet' } },
    ageSeconds: checks === undefined ? undefined : Math.floor((Date.now() - readAt) / 1000),
  })
}

const LAMPORTS = 'facilitator_solana_fee_payer_lamports'

/** Each Solana fee payer's SOL, in lamports, as readiness last read it: one gauge for every Solana network. */
const lamportsGauge = (registry: Registry): Gauge<'network' | 'account'> =>
  (registry.getSingleMetric(LAMPORTS) as Gauge<'network' | 'account'> | undefined) ??
  new Gauge({
    name: LAMPORTS,
    help: "a Solana fee payer's balance in lamports, as last read",
    labelNames: ['network', 'account'],
    registers: [registry],
  })
