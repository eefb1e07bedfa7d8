// The verify phase: a warm-up, then distinct valid payments measured; every answer must be 200 {valid:true}. Then the
// HTTP floor: as many GET /healthz, the service CPU any answer costs at least. The wallet-verify phase: the same load
// from smart-wallet payers, whose signatures the service checks through the wallet (ERC-1271) instead of locally.
import { round, say } from '../basics.mjs'
import { runLoad } from '../load.mjs'
import { measure, sendPayments } from '../measure.mjs'
import { cpuDelta, cpuSnapshot } from '../proc.mjs'

export const verifyJudge = (status, body) =>
  status === 200 && body?.valid === true ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`

/** The run's `verify` JSON. */
export const measureVerify = async (context, { verifyWarm, verifySigned }) => {
  say(
    `  verify: ${context.config.warmup} warm-up, then ${context.config.verify} at concurrency ${context.concurrency}…`,
  )
  await sendPayments(context, 'verify', verifyWarm, verifyJudge)
  return (await measure(context, 'verify', verifySigned, verifyJudge)).result
}

/** The run's `walletVerify` JSON: as `verify`, the payers ERC-1271 wallets (bench/lib/setup/smart-wallets.mjs). */
export const measureWalletVerify = async (context, { walletWarm, walletSigned }) => {
  say(
    `  wallet-verify: ${walletWarm.length} warm-up, then ${walletSigned.length} from ${context.wallets.length} smart wallets at concurrency ${context.concurrency}…`,
  )
  await sendPayments(context, 'verify', walletWarm, verifyJudge)
  return {
    ...(await measure(context, 'verify', walletSigned, verifyJudge, 'wallet-verify')).result,
    wallets: context.wallets.length,
  }
}

/** The floor under any answer of this service: node's HTTP server, koa and every middleware, no body, no work. The run's `httpFloor` JSON. */
export const measureHttpFloor = async ({ config, concurrency, service, pids }) => {
  const floorCount = config.verify
  const probe = {
    origin: service.origin,
    path: '/healthz',
    method: 'GET',
    bodies: new Array(floorCount),
    concurrency,
    judge: (status) => (status === 200 ? undefined : `${status}`),
  }
  await runLoad({ ...probe, bodies: new Array(Math.min(floorCount, 1_000)) })
  const before = cpuSnapshot({ service: pids.service })
  const floor = await runLoad(probe)
  const floorUs = round((cpuDelta(before, cpuSnapshot({ service: pids.service })).service * 1000) / floorCount, 0)
  const httpFloor = {
    requests: floorCount,
    rps: round(floor.rps),
    failures: floor.failures,
    serviceCpuUsPerRequest: floorUs,
  }
  say(`  HTTP floor (GET /healthz, same concurrency): ${httpFloor.rps} req/s, service CPU ${floorUs} µs per request`)
  return httpFloor
}
