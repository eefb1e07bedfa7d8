#!/usr/bin/env node
// `npm run bench`: the service's verify and settle throughput against the limits of this machine, measured in one run.
// Flags (or environment BENCH_<FLAG>, e.g. BENCH_RUNS=3): see usage() below.
import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, readdirSync, copyFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { makeChainRpc, makeViemTokenReader, startLocalChain, demoUsdAbi, demoUsdBytecode } from '@x402-facilitator/adapters-chain'
import { startEmbeddedPostgres } from '@x402-facilitator/adapters-persistence'
import pg from 'pg'
import { encodeDeployData, encodeFunctionData, numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { cpuDelta, cpuSnapshot, memory, threadCpuMs } from './lib/proc.mjs'
import { runLoad } from './lib/load.mjs'
import { startService } from './lib/service.mjs'
import { monotonicUs, summariseProfile } from './lib/cpuprofile.mjs'
import { makeRpc } from './lib/rpc.mjs'
import { signBodies, freshAddress, word, TRANSFER_TOPIC, AUTHORIZATION_USED_TOPIC } from './lib/payments.mjs'
import { measureNodeCeiling, measurePgInserts, measureRecoveries } from './lib/limits.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))

const OPTIONS = {
  verify: { type: 'string', default: '2000', help: 'verify requests per run' },
  settle: { type: 'string', default: '1000', help: 'settle requests per run' },
  concurrency: { type: 'string', default: '32', help: 'requests in flight' },
  runs: { type: 'string', default: '1', help: 'whole runs back to back against the same service (RSS growth between them)' },
  warmup: { type: 'string', default: '3000', help: 'verify requests before measuring (the JIT is still compiling after 1,000)' },
  'settle-warmup': { type: 'string', default: '250', help: 'settle requests before measuring' },
  ceiling: { type: 'string', default: '1000', help: 'pre-signed transfers sent straight to the node for its ceiling' },
  inserts: { type: 'string', default: '5000', help: 'Postgres single-row inserts for its limit' },
  payers: { type: 'string', default: '8', help: 'funded payers the payments come from' },
  phases: { type: 'string', default: 'verify,settle,limits', help: 'which phases to run (comma list)' },
  'log-level': { type: 'string', default: 'info', help: 'the service LOG_LEVEL (its output goes to bench/results/service.log)' },
  profile: { type: 'boolean', default: false, help: 'run the service with --cpu-prof and summarise its top self-time functions' },
  'no-save': { type: 'boolean', default: false, help: 'do not write bench/results/*.json' },
  strict: { type: 'boolean', default: false, help: 'exit 1 when a speed target is missed (a failed request or double charge always does)' },
  out: { type: 'string', default: path.join(HERE, 'results'), help: 'results directory' },
  help: { type: 'boolean', default: false, help: 'this text' },
}

const usage = () =>
  [
    'npm run bench -- [flags]   (each flag also as environment BENCH_<FLAG>, e.g. BENCH_RUNS=3)',
    '',
    ...Object.entries(OPTIONS).map(([name, o]) => `  --${name.padEnd(12)} ${o.help}${o.type === 'string' ? ` [${o.default}]` : ''}`),
    '',
    'Environment: RPC_URL (a dev node with an unlocked account: the demo token is deployed there; with ASSET_ADDRESS,',
    'FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS (comma list of funded payers) nothing is deployed), DATABASE_URL.',
    'Unset: a local anvil and an embedded Postgres of its own, both stopped at the end.',
    'BENCH_NODE_ARGS: extra node flags for the service (space-separated), e.g. "--single-threaded-gc" to try a V8 setting.',
  ].join('\n')

const parsed = parseArgs({ options: Object.fromEntries(Object.entries(OPTIONS).map(([k, o]) => [k, { type: o.type }])), strict: true })
const opt = (name) => {
  const env = process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`]
  const value = parsed.values[name] ?? (env !== undefined ? (OPTIONS[name].type === 'boolean' ? env === '1' || env === 'true' : env) : OPTIONS[name].default)
  return value
}
if (opt('help')) {
  console.log(usage())
  process.exit(0)
}
const int = (name, min = 0) => {
  const v = Number(opt(name))
  if (!Number.isSafeInteger(v) || v < min) {
    console.error(`--${name}: expected an integer >= ${min}, got ${opt(name)}`)
    process.exit(2)
  }
  return v
}
const config = {
  verify: int('verify'),
  settle: int('settle'),
  concurrency: int('concurrency', 1),
  runs: Math.min(int('runs', 1), 20),
  warmup: int('warmup'),
  settleWarmup: int('settle-warmup'),
  ceiling: int('ceiling'),
  inserts: int('inserts'),
  payers: int('payers', 1),
  phases: new Set(String(opt('phases')).split(',').map((s) => s.trim())),
  logLevel: String(opt('log-level')),
  profile: Boolean(opt('profile')),
  save: !opt('no-save'),
  strict: Boolean(opt('strict')),
  out: String(opt('out')),
}
const VALUE = 10_000n // 0.01 DUSD per payment

const say = (line) => console.log(line)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const round = (x, digits = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x)

// ——— clean-up, whatever happens ———
const cleanups = []
let cleaning
const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn()
      } catch (error) {
        console.error(`clean-up: ${error.message}`)
      }
    }
  })())
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping everything the benchmark started…`)
    const hard = setTimeout(() => process.exit(130), 20_000)
    hard.unref()
    void cleanUp().finally(() => process.exit(130))
  })
}
// A hard bound on the whole benchmark.
const overall = setTimeout(() => {
  console.error('the benchmark exceeded its overall time bound (30 min per run): stopping')
  void cleanUp().finally(() => process.exit(3))
}, 30 * 60_000 * config.runs)
overall.unref()

// ——— the chain ———
const setUpChain = async () => {
  const rpcUrl = process.env.RPC_URL
  if (!rpcUrl) {
    say('starting anvil (demo token, funded payers)…')
    const chain = await startLocalChain({ payers: config.payers, payerBalance: 10n ** 15n })
    cleanups.push(() => chain.stop())
    return { rpcUrl: chain.rpcUrl, chainId: chain.chainId, token: chain.tokenAddress, facilitator: chain.facilitator, payers: chain.payers, anvilPid: chain.anvilPid, own: true }
  }
  const rpc = makeRpc(rpcUrl, 2)
  cleanups.push(() => rpc.close())
  const chainId = Number(BigInt(await rpc.call('eth_chainId')))
  if (process.env.ASSET_ADDRESS) {
    const keys = (process.env.BENCH_PAYER_KEYS ?? '').split(',').filter(Boolean)
    if (!process.env.FACILITATOR_PRIVATE_KEY || keys.length === 0) throw new Error('with ASSET_ADDRESS, set FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS')
    const account = (privateKey) => ({ privateKey, address: privateKeyToAddress(privateKey).toLowerCase() })
    return { rpcUrl, chainId, token: process.env.ASSET_ADDRESS.toLowerCase(), facilitator: account(process.env.FACILITATOR_PRIVATE_KEY), payers: keys.map(account), own: false }
  }
  say(`deploying the demo token on ${rpcUrl}…`)
  const [owner] = await rpc.call('eth_accounts')
  if (!owner) throw new Error(`${rpcUrl} has no unlocked account: give ASSET_ADDRESS, FACILITATOR_PRIVATE_KEY and BENCH_PAYER_KEYS`)
  const mined = async (hash) => {
    for (let i = 0; i < 2_000; i++) {
      const receipt = await rpc.call('eth_getTransactionReceipt', [hash])
      if (receipt) {
        if (receipt.status !== '0x1') throw new Error(`set-up transaction ${hash} reverted`)
        return receipt
      }
      await sleep(25)
    }
    throw new Error(`set-up transaction ${hash} not mined`)
  }
  const { contractAddress } = await mined(await rpc.call('eth_sendTransaction', [{ from: owner, data: encodeDeployData({ abi: demoUsdAbi, bytecode: demoUsdBytecode, args: ['Demo USD', 'DUSD'] }) }]))
  const token = contractAddress.toLowerCase()
  const account = () => {
    const privateKey = generatePrivateKey()
    return { privateKey, address: privateKeyToAddress(privateKey).toLowerCase() }
  }
  const facilitator = account()
  const payers = Array.from({ length: config.payers }, account)
  await rpc.call('anvil_setBalance', [facilitator.address, numberToHex(10n ** 21n)])
  for (const p of payers) {
    await mined(await rpc.call('eth_sendTransaction', [{ from: owner, to: token, data: encodeFunctionData({ abi: demoUsdAbi, functionName: 'mint', args: [p.address, 10n ** 15n] }) }]))
  }
  return { rpcUrl, chainId, token, facilitator, payers, own: false }
}

// ——— Postgres ———
const setUpDatabase = async () => {
  if (process.env.DATABASE_URL) return { serviceUrl: process.env.DATABASE_URL, limitUrl: process.env.DATABASE_URL, own: false }
  say('starting embedded Postgres…')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'x402-bench-pg-'))
  chmodSync(dataDir, 0o755) // as root, Postgres runs as the postgres user, which must reach it
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'data'), handleSignals: false })
  cleanups.push(() => server.stop())
  const admin = new pg.Client({ connectionString: server.connectionString })
  await admin.connect()
  await admin.query('create database x402_bench')
  await admin.end()
  const url = new URL(server.connectionString)
  url.pathname = '/x402_bench'
  return { serviceUrl: url.toString(), limitUrl: server.connectionString, postgresPid: server.pid, own: true }
}

// ——— checks of a settle phase ———
const checkSettlements = async ({ rpc, db, token, facilitator, signed, answers, payTo, fromBlock, balancesBefore }) => {
  const problems = []
  const hashes = answers.map((a) => a?.body?.txHash?.toLowerCase())
  if (new Set(hashes).size !== hashes.length || hashes.some((h) => !h)) problems.push('transaction hashes missing or repeated')
  const receipts = await rpc.batch(hashes.filter(Boolean).map((h) => ['eth_getTransactionReceipt', [h]]))
  let receiptProblems = 0
  receipts.forEach((r, i) => {
    const s = signed[i]
    const ok =
      r &&
      r.status === '0x1' &&
      r.from.toLowerCase() === facilitator.address &&
      r.to?.toLowerCase() === token &&
      Number(BigInt(r.blockNumber)) === Number(answers[i].body.blockNumber) &&
      r.logs.some((l) => l.topics[0] === TRANSFER_TOPIC && l.topics[1] === word(s.payer) && l.topics[2] === word(payTo) && BigInt(l.data) === s.value) &&
      r.logs.some((l) => l.topics[0] === AUTHORIZATION_USED_TOPIC && l.topics[1] === word(s.payer) && l.topics[2] === s.nonce)
    if (!ok) receiptProblems++
  })
  if (receiptProblems > 0) problems.push(`${receiptProblems} receipts missing, reverted or without the expected Transfer/AuthorizationUsed`)

  // Exactly once on-chain: every transfer to this run's (fresh) payee, and every use of its nonces, since the start.
  const toPayee = await rpc.call('eth_getLogs', [{ address: token, fromBlock: numberToHex(fromBlock), toBlock: 'latest', topics: [TRANSFER_TOPIC, null, word(payTo)] }])
  if (toPayee.length !== signed.length) problems.push(`${toPayee.length} transfers to the payee on-chain, expected ${signed.length}`)
  const nonces = new Set(signed.map((s) => s.nonce))
  const used = await rpc.call('eth_getLogs', [{ address: token, fromBlock: numberToHex(fromBlock), toBlock: 'latest', topics: [AUTHORIZATION_USED_TOPIC] }])
  const usedCount = new Map()
  for (const l of used) if (nonces.has(l.topics[2])) usedCount.set(l.topics[2], (usedCount.get(l.topics[2]) ?? 0) + 1)
  const notOnce = [...nonces].filter((n) => usedCount.get(n) !== 1).length
  if (notOnce > 0) problems.push(`${notOnce} authorizations not used exactly once on-chain`)

  // Balances.
  const payers = [...new Set(signed.map((s) => s.payer))]
  const balanceOf = (a) => ['eth_call', [{ to: token, data: `0x70a08231${word(a).slice(2)}` }, 'latest']]
  const after = (await rpc.batch([...payers, payTo].map(balanceOf))).map((h) => BigInt(h))
  const spent = new Map()
  for (const s of signed) spent.set(s.payer, (spent.get(s.payer) ?? 0n) + s.value)
  payers.forEach((p, i) => {
    if (balancesBefore.get(p) - after[i] !== spent.get(p)) problems.push(`payer ${p} balance moved by ${balancesBefore.get(p) - after[i]}, expected ${spent.get(p)}`)
  })
  const total = signed.reduce((sum, s) => sum + s.value, 0n)
  if (after[payers.length] !== total) problems.push(`payee holds ${after[payers.length]}, expected ${total}`)

  // The journal: one row per payment, confirmed, naming the answered transaction and block, one attempt each.
  const { rows } = await db.query(
    `select s.nonce, s.payer, s.state, s.tx_hash, s.block_number::text as block_number,
       (select count(*)::int from settlement_attempts a where a.settlement_id = s.id) as attempts
     from settlements s where s.payee = $1`,
    [payTo],
  )
  const byNonce = new Map(rows.map((r) => [`${r.payer}:${r.nonce}`, r]))
  let journalProblems = 0
  signed.forEach((s, i) => {
    const r = byNonce.get(`${s.payer}:${s.nonce}`)
    if (!r || r.state !== 'confirmed' || r.tx_hash !== hashes[i] || Number(r.block_number) !== Number(answers[i].body.blockNumber) || r.attempts !== 1) journalProblems++
  })
  if (rows.length !== signed.length) problems.push(`${rows.length} journal rows for the payee, expected ${signed.length}`)
  if (journalProblems > 0) problems.push(`${journalProblems} payments without a confirmed journal row naming their answered transaction (one attempt)`)
  const replaced = rows.filter((r) => r.attempts > 1).length
  // Exactly once, whatever the answers said: each authorization used once on-chain, one transfer each, balances, and a
  // confirmed journal row whose transaction is one of those transfers.
  const transferTx = new Set(toPayee.map((l) => l.transactionHash.toLowerCase()))
  const rowsOk = rows.length === signed.length && rows.every((r) => r.state === 'confirmed' && transferTx.has(r.tx_hash))
  const exactlyOnce = notOnce === 0 && toPayee.length === signed.length && rowsOk && !problems.some((p) => p.startsWith('paye'))
  return { ok: problems.length === 0, exactlyOnce, problems, replacedTransactions: replaced, receipts: receipts.length, journalRows: rows.length }
}

const balances = async (rpc, token, addresses) => {
  const list = [...new Set(addresses)]
  const values = await rpc.batch(list.map((a) => ['eth_call', [{ to: token, data: `0x70a08231${word(a).slice(2)}` }, 'latest']]))
  return new Map(list.map((a, i) => [a, BigInt(values[i])]))
}

// ——— one run ———
const oneRun = async ({ index, chain, domain, network, service, rpc, db, database, pids, windows }) => {
  const run = { run: index + 1 }
  const C = config.concurrency
  const phase = (name) => config.phases.has(name)
  const sign = async (count, payTo) => signBodies({ count, payers: chain.payers, payTo, value: VALUE, network, domain })

  say(`\nrun ${index + 1}/${config.runs}: signing payments…`)
  const signStarted = performance.now()
  const verifyPayTo = freshAddress()
  const settlePayTo = freshAddress()
  const ceilingPayTo = freshAddress()
  const verifyWarm = phase('verify') ? await sign(config.warmup, verifyPayTo) : []
  const verifySigned = phase('verify') ? await sign(config.verify, verifyPayTo) : []
  const settleWarmCount = phase('settle') ? config.settleWarmup : 0
  const settleWarm = await sign(settleWarmCount, freshAddress())
  const settleSigned = phase('settle') ? await sign(config.settle, settlePayTo) : []
  const ceilingSigned = phase('limits') ? await sign(config.ceiling, ceilingPayTo) : []
  run.signing = { payments: verifyWarm.length + verifySigned.length + settleWarm.length + settleSigned.length + ceilingSigned.length, seconds: round((performance.now() - signStarted) / 1000, 2) }

  /** The service's own counters of round trips (its /metrics): how many statements and node requests a request cost. */
  const roundTrips = async () => {
    const text = await (await fetch(`${service.origin}/metrics`)).text()
    const counter = (name) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
    return { journal: counter('facilitator_journal_statements_total'), rpc: counter('facilitator_rpc_requests_total') }
  }
  const measured = async (name, bodies, endpoint, judge) => {
    const tripsBefore = await roundTrips()
    const before = cpuSnapshot(pids)
    const threadsBefore = threadCpuMs(service.pid)
    const startUs = monotonicUs()
    const result = await runLoad({ origin: service.origin, path: `/api/facilitator/${endpoint}`, bodies: bodies.map((b) => b.json), concurrency: C, judge })
    const cpu = cpuDelta(before, cpuSnapshot(pids))
    const threads = cpuDelta(threadsBefore, threadCpuMs(service.pid))
    const tripsAfter = await roundTrips()
    const perRequest = (key) => round((tripsAfter[key] - tripsBefore[key]) / bodies.length, 2)
    windows.push({ name: `run ${index + 1} ${name}`, startUs, endUs: monotonicUs() })
    const { answers, ...rest } = result
    say(`  ${name}: ${round(result.rps)} req/s, p50 ${round(result.p50Ms, 2)} ms, p99 ${round(result.p99Ms, 2)} ms, ${result.failures} failures`)
    say(`    CPU ms by process ${JSON.stringify(Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(v, 0)])))}; service threads ${JSON.stringify(Object.fromEntries(Object.entries(threads).filter(([, v]) => v > 0)))}`)
    say(`    per request: ${perRequest('journal')} journal statements, ${perRequest('rpc')} HTTP requests to the node`)
    if (result.failures > 0) say(`    e.g. ${JSON.stringify(result.failureSamples.slice(0, 3))}`)
    return {
      answers,
      result: {
        ...rest,
        rps: round(rest.rps),
        p50Ms: round(rest.p50Ms, 2),
        p90Ms: round(rest.p90Ms, 2),
        p99Ms: round(rest.p99Ms, 2),
        maxMs: round(rest.maxMs, 2),
        serviceCpuUsPerRequest: round((cpu.service * 1000) / bodies.length, 0),
        cpuMsByProcess: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(v, 0)])),
        serviceCpuMsByThread: Object.fromEntries(Object.entries(threads).filter(([, v]) => v > 0).map(([k, v]) => [k, round(v, 0)])),
        cpuCoresBusy: round(Object.values(cpu).reduce((a, b) => a + b, 0) / rest.elapsedMs, 2),
        journalStatementsPerRequest: perRequest('journal'),
        nodeRequestsPerRequest: perRequest('rpc'),
      },
    }
  }
  const verifyJudge = (status, body) => (status === 200 && body?.valid === true ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`)
  const settleJudge = (status, body) => (status === 200 && body?.success === true && body.txHash ? undefined : `${status} ${JSON.stringify(body).slice(0, 200)}`)

  if (phase('limits')) {
    say('  limit: signature checks on one core…')
    const r = await measureRecoveries({ signed: verifySigned.length > 0 ? verifySigned.slice(0, 500) : settleSigned.concat(ceilingSigned).slice(0, 500), domain })
    run.recoveries = { perSecond: round(r.perSecond, 0), usEach: round(r.usEach, 1), viemVerifyTypedDataUs: round(r.viemVerifyTypedDataUs, 0) }
    say(`    ${run.recoveries.perSecond}/s (${run.recoveries.usEach} µs each; viem verifyTypedData ${run.recoveries.viemVerifyTypedDataUs} µs)`)
  }

  if (phase('verify')) {
    say(`  verify: ${config.warmup} warm-up, then ${config.verify} at concurrency ${C}…`)
    await runLoad({ origin: service.origin, path: '/api/facilitator/verify', bodies: verifyWarm.map((b) => b.json), concurrency: C, judge: verifyJudge })
    run.verify = (await measured('verify', verifySigned, 'verify', verifyJudge)).result
    // The floor under any answer of this service: node's HTTP server, koa and every middleware, no body, no work.
    const floorCount = config.verify
    const probe = { origin: service.origin, path: '/healthz', method: 'GET', bodies: new Array(floorCount), concurrency: C, judge: (status) => (status === 200 ? undefined : `${status}`) }
    await runLoad({ ...probe, bodies: new Array(Math.min(floorCount, 1_000)) })
    const before = cpuSnapshot({ service: pids.service })
    const floor = await runLoad(probe)
    const floorUs = round((cpuDelta(before, cpuSnapshot({ service: pids.service })).service * 1000) / floorCount, 0)
    run.httpFloor = { requests: floorCount, rps: round(floor.rps), failures: floor.failures, serviceCpuUsPerRequest: floorUs }
    say(`  HTTP floor (GET /healthz, same concurrency): ${run.httpFloor.rps} req/s, service CPU ${floorUs} µs per request`)
  }

  if (phase('limits') && config.ceiling > 0) {
    say(`  limit: the node's ceiling, ${config.ceiling} pre-signed transfers from one key at concurrency ${C}…`)
    const privateKey = generatePrivateKey()
    const sender = { privateKey, address: privateKeyToAddress(privateKey).toLowerCase() }
    try {
      await rpc.call('anvil_setBalance', [sender.address, numberToHex(10n ** 21n)])
      const cpuBefore = cpuSnapshot({ anvil: pids.anvil })
      const r = await measureNodeCeiling({ rpc, sender, signed: ceilingSigned, chainId: chain.chainId, token: chain.token, concurrency: C })
      const anvilCpuMs = cpuDelta(cpuBefore, cpuSnapshot({ anvil: pids.anvil })).anvil
      run.nodeCeiling = { transactions: r.transactions, perSecond: round(r.perSecond), sentPerSecond: round(r.sentPerSecond), seconds: round(r.elapsedMs / 1000, 2), failures: r.failures, unmined: r.unmined, blocks: r.blocks, errors: r.errors, ...(anvilCpuMs !== undefined ? { anvilCpuUsPerTransaction: round((anvilCpuMs * 1000) / r.transactions, 0) } : {}) }
      say(`    ${run.nodeCeiling.perSecond} tx/s mined (sent at ${run.nodeCeiling.sentPerSecond}/s), ${r.failures} failures${r.unmined ? `, ${r.unmined} NOT MINED: ${r.errors.join('; ')}` : ''}${run.nodeCeiling.anvilCpuUsPerTransaction !== undefined ? `; anvil CPU ${run.nodeCeiling.anvilCpuUsPerTransaction} µs per transaction` : ''}`)
    } catch (error) {
      run.nodeCeiling = { skipped: `the node would not fund a fresh sender (anvil_setBalance): ${error.message}` }
      say(`    skipped: ${run.nodeCeiling.skipped}`)
    }
  }

  if (phase('settle')) {
    say(`  settle: ${settleWarm.length} warm-up, then ${config.settle} at concurrency ${C}…`)
    await runLoad({ origin: service.origin, path: '/api/facilitator/settle', bodies: settleWarm.map((b) => b.json), concurrency: C, judge: settleJudge })
    const fromBlock = Number(BigInt(await rpc.call('eth_blockNumber')))
    const before = await balances(rpc, chain.token, [...settleSigned.map((s) => s.payer), settlePayTo])
    const { result, answers } = await measured('settle', settleSigned, 'settle', settleJudge)
    say('    checking every settlement on-chain and in the journal…')
    const check = await checkSettlements({ rpc, db, token: chain.token, facilitator: chain.facilitator, signed: settleSigned, answers, payTo: settlePayTo, fromBlock, balancesBefore: before })
    run.settle = { ...result, chainBlockAtStart: fromBlock, exactlyOnce: check }
    say(`    ${check.ok ? 'all settled exactly once, receipts, balances and journal agree' : `exactly once: ${check.exactlyOnce ? 'yes' : 'NO'}; PROBLEMS: ${check.problems.join('; ')}`}`)
  }

  if (phase('limits') && config.inserts > 0) {
    say(`  limit: Postgres single-row inserts at concurrency ${C}…`)
    const r = await measurePgInserts({ connectionString: database.limitUrl, concurrency: C, count: config.inserts })
    run.pgInserts = { inserts: r.inserts, perSecond: round(r.perSecond, 0), failures: r.failures }
    say(`    ${run.pgInserts.perSecond}/s`)
  }

  // At rest: the lowest RSS over 15 idle seconds (V8 hands memory back after about 10). A single reading lands
  // anywhere between two garbage collections (±20 % here, run to run); what a leak raises is the floor.
  let atRest = memory(service.pid)
  for (let waited = 0; waited < Number(process.env.BENCH_REST_MS ?? 15_000); waited += 250) {
    await sleep(250)
    const now = memory(service.pid)
    if (now.rssMiB < atRest.rssMiB) atRest = { ...now, hwmMiB: Math.max(now.hwmMiB, atRest.hwmMiB) }
  }
  run.serviceMemory = Object.fromEntries(Object.entries(atRest).map(([k, v]) => [k, round(v, 1)]))
  say(`  service RSS at rest ${run.serviceMemory.rssMiB} MiB (peak ${run.serviceMemory.hwmMiB} MiB)`)
  return run
}

// ——— report ———
const share = (x, limit) => (Number.isFinite(x) && Number.isFinite(limit) && limit > 0 ? `${round((100 * x) / limit, 0)} %` : '—')
const table = (runs, summary) => {
  const rows = [['run', 'phase', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'failures', 'svc CPU µs/req', 'of limit', 'limit']]
  for (const r of runs) {
    if (r.verify)
      rows.push([r.run, 'verify', r.verify.requests, r.verify.rps, r.verify.p50Ms, r.verify.p99Ms, r.verify.failures, r.verify.serviceCpuUsPerRequest,
        share(r.verify.rps, r.recoveries?.perSecond), r.recoveries ? `${r.recoveries.perSecond} sig checks/s (1 core)` : '—'])
    if (r.httpFloor)
      rows.push([r.run, ' /healthz', r.httpFloor.requests, r.httpFloor.rps, '', '', r.httpFloor.failures, r.httpFloor.serviceCpuUsPerRequest, '', 'HTTP floor: koa + middleware, no work'])
    if (r.settle)
      rows.push([r.run, 'settle', r.settle.requests, r.settle.rps, r.settle.p50Ms, r.settle.p99Ms, r.settle.failures + (r.settle.exactlyOnce.ok ? 0 : 1) * 0, r.settle.serviceCpuUsPerRequest,
        share(r.settle.rps, r.nodeCeiling?.perSecond), r.nodeCeiling?.perSecond ? `${r.nodeCeiling.perSecond} tx/s node ceiling` : '—'])
    if (r.settle && r.pgInserts)
      rows.push([r.run, ' journal', `${r.settle.requests * 3} writes`, round(r.settle.rps * 3), '', '', '', '', share(r.settle.rps * 3, r.pgInserts.perSecond), `${r.pgInserts.perSecond} pg inserts/s`])
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)))
  const line = (row) => row.map((cell, c) => (typeof cell === 'number' ? String(cell).padStart(widths[c]) : String(cell).padEnd(widths[c]))).join('  ')
  const out = [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)]
  out.push('')
  for (const r of runs) out.push(`run ${r.run}: service RSS ${r.serviceMemory.rssMiB} MiB, peak (VmHWM) ${r.serviceMemory.hwmMiB} MiB${r.settle ? `; exactly once: ${r.settle.exactlyOnce.exactlyOnce ? 'yes' : 'NO'}; answers match: ${r.settle.exactlyOnce.ok ? 'yes' : r.settle.exactlyOnce.problems.join('; ')}` : ''}`)
  if (summary.rssGrowth !== undefined) out.push(`RSS growth run 1 → ${runs.length}: ${summary.rssGrowth} %`)
  out.push('')
  out.push('targets:')
  for (const t of summary.targets) out.push(`  ${t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value} (target ${t.target})`)
  return out.join('\n')
}

const evaluate = (runs) => {
  const targets = []
  const add = (name, value, target, met) => targets.push({ name, value, target, met })
  const last = runs[runs.length - 1]
  for (const r of runs) {
    const tag = runs.length > 1 ? ` (run ${r.run})` : ''
    if (r.verify) {
      add(`verify req/s${tag}`, r.verify.rps, '≥ 3000', r.verify.rps >= 3000)
      add(`verify p99${tag}`, `${r.verify.p99Ms} ms`, '≤ 50 ms', r.verify.p99Ms <= 50)
      add(`verify failures${tag}`, r.verify.failures, '0', r.verify.failures === 0)
      add(`verify service CPU per request${tag}`, `${r.verify.serviceCpuUsPerRequest} µs`, '≤ 250 µs', r.verify.serviceCpuUsPerRequest <= 250)
    }
    if (r.settle) {
      const ceiling = r.nodeCeiling?.perSecond
      add(`settle req/s${tag}`, `${r.settle.rps} (${share(r.settle.rps, ceiling)} of the node's ${ceiling ?? '?'})`, '≥ 60 % of the node ceiling', ceiling !== undefined && r.settle.rps >= 0.6 * ceiling)
      add(`settle p99${tag}`, `${r.settle.p99Ms} ms`, '≤ 250 ms', r.settle.p99Ms <= 250)
      add(`settle failures${tag}`, r.settle.failures, '0', r.settle.failures === 0)
      add(`settle exactly once${tag}`, r.settle.exactlyOnce.exactlyOnce ? 'yes' : 'no', 'every authorization transferred once on-chain, balances, journal confirmed', r.settle.exactlyOnce.exactlyOnce)
      add(`settle answers match chain and journal${tag}`, r.settle.exactlyOnce.ok ? 'yes' : r.settle.exactlyOnce.problems.join('; '), 'every answered tx mined, one attempt, journal names it', r.settle.exactlyOnce.ok)
    }
  }
  add('service RSS at the end', `${last.serviceMemory.rssMiB} MiB`, '≤ 250 MiB', last.serviceMemory.rssMiB <= 250)
  let rssGrowth
  if (runs.length > 1) {
    rssGrowth = round((100 * (last.serviceMemory.rssMiB - runs[0].serviceMemory.rssMiB)) / runs[0].serviceMemory.rssMiB, 1)
    add(`RSS growth run 1 → ${runs.length}`, `${rssGrowth} %`, '< 10 %', rssGrowth < 10)
  }
  return { targets, rssGrowth, allMet: targets.every((t) => t.met) }
}

const machine = () => ({
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  memoryGiB: round(os.totalmem() / 2 ** 30, 1),
  os: `${os.type()} ${os.release()}`,
  node: process.version,
  hostname: os.hostname(),
})

// ——— main ———
const main = async () => {
  const started = new Date()
  mkdirSync(config.out, { recursive: true })
  const chain = await setUpChain()
  const database = await setUpDatabase()
  const rpc = makeRpc(chain.rpcUrl, config.concurrency)
  cleanups.push(() => rpc.close())
  const db = new pg.Pool({ connectionString: database.serviceUrl, max: 2 })
  cleanups.push(() => db.end())

  const reader = makeViemTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.token)
  const domainEither = await reader.domain()
  if (domainEither._tag !== 'Right') throw new Error(`reading the token domain: ${JSON.stringify(domainEither.left)}`)
  const domain = domainEither.right
  const network = `eip155:${chain.chainId}`

  const profileDir = path.join(config.out, 'profiles', started.toISOString().replace(/[:.]/g, '-'))
  if (config.profile) mkdirSync(profileDir, { recursive: true })
  say(`starting the service (production build${config.profile ? ', --cpu-prof' : ''})…`)
  const service = await startService({
    env: {
      RPC_URL: chain.rpcUrl,
      ASSET_ADDRESS: chain.token,
      FACILITATOR_PRIVATE_KEY: chain.facilitator.privateKey,
      DATABASE_URL: database.serviceUrl,
      CONFIRMATIONS: '0',
      LOG_LEVEL: config.logLevel,
      // The load comes from one client: a per-client rate limit would measure the limiter.
      RATE_LIMIT: '0',
      NODE_OPTIONS: '',
    },
    nodeArgs: [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), ...(config.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    logFile: path.join(config.out, 'service.log'),
  })
  cleanups.push(() => service.stop())
  say(`service ready at ${service.origin} (pid ${service.pid})`)
  const pids = { service: service.pid, anvil: chain.anvilPid, postgres: database.postgresPid, bench: process.pid }

  const runs = []
  const windows = []
  for (let i = 0; i < config.runs; i++) runs.push(await oneRun({ index: i, chain, domain, network, service, rpc, db, database, pids, windows }))

  const summary = evaluate(runs)
  let profile
  if (config.profile) {
    say('\nstopping the service to write its CPU profile…')
    await service.stop()
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))
    if (files.length > 0) {
      profile = windows.map((window) => summariseProfile(path.join(profileDir, files[0]), { top: 30, window }))
      for (const p of profile) {
        say(`\nservice CPU profile, ${p.window}: main thread busy ${p.busyMs} of ${p.totalMs} ms; top self time:`)
        for (const f of p.functions) say(`  ${String(f.selfMs).padStart(8)} ms ${String(f.share).padStart(5)} %  ${f.name}`)
        say('  by package:')
        for (const f of p.packages.slice(0, 15)) say(`  ${String(f.selfMs).padStart(8)} ms ${String(f.share).padStart(5)} %  ${f.name}`)
      }
      say(`(profile: ${path.join(profileDir, files[0])})`)
    } else say('no profile was written')
  }

  const report = table(runs, summary)
  say(`\n${report}`)
  const result = {
    date: started.toISOString(),
    machine: machine(),
    config: { ...config, phases: [...config.phases], valuePerPayment: VALUE.toString(), ownChain: chain.own, ownDatabase: database.own },
    runs,
    summary,
    ...(profile ? { profile } : {}),
  }
  if (config.save) {
    const file = path.join(config.out, `${started.toISOString().slice(0, 19).replace(/[:T]/g, '-')}.json`)
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
    copyFileSync(file, path.join(config.out, 'latest.json'))
    say(`\nwritten: ${path.relative(process.cwd(), file)} and ${path.relative(process.cwd(), path.join(config.out, 'latest.json'))}`)
  }
  // A missed speed target is a finding, not a failed run; a failed request or a double charge is.
  const correct = runs.every((r) => (r.verify?.failures ?? 0) === 0 && (!r.settle || (r.settle.failures === 0 && r.settle.exactlyOnce.ok)))
  if (!correct) return 1
  return config.strict && !summary.allMet ? 1 : 0
}

let code = 1
try {
  code = await main()
} catch (error) {
  console.error(`bench failed: ${error.stack ?? error.message}`)
  code = 2
} finally {
  await cleanUp()
}
process.exit(code)
