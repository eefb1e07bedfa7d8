// The limits the service's throughput is judged against, measured in the same run on the same machine.
import {
  makeTransferAuthorizationDigest,
  recoverAddress,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
} from '@x402-facilitator/adapters-chain'
import pg from 'pg'
import { verifyTypedData } from 'viem'
import { signTransfers } from './payments.mjs'
import { sleep } from './basics.mjs'

const authorizationOf = (body) => {
  const a = body.paymentPayload.payload.authorization
  return {
    from: a.from,
    to: a.to,
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce,
  }
}

const splitSignature = (signature) => {
  const bytes = Buffer.from(signature.slice(2), 'hex')
  return { compact: new Uint8Array(bytes.subarray(0, 64)), recoveryId: bytes[64] % 27 }
}

/**
 * Signature checks per second on this (one) core with the service's library: the EIP-712 digest (domain separator
 * precomputed) + libsecp256k1 recovery + keccak address, exactly the service's per-verify work. Also viem's
 * `verifyTypedData` on a few, for comparison.
 */
export const measureRecoveries = async ({ signed, domain, maxMs = 1_500, maxCount = 200_000 }) => {
  const digestOf = makeTransferAuthorizationDigest(domain)
  const items = signed.map((s) => ({
    authorization: authorizationOf(s.body),
    ...splitSignature(s.body.paymentPayload.payload.signature),
    from: s.payer,
  }))
  // Warm-up, and a correctness check on every item.
  for (const it of items)
    if (recoverAddress(digestOf(it.authorization), it.compact, it.recoveryId) !== it.from)
      throw new Error('recovery check failed')
  let count = 0
  const started = performance.now()
  let now = started
  while (now - started < maxMs && count < maxCount) {
    for (let k = 0; k < 256; k++) {
      const it = items[count % items.length]
      recoverAddress(digestOf(it.authorization), it.compact, it.recoveryId)
      count++
    }
    now = performance.now()
  }
  const perSecond = count / ((now - started) / 1000)

  const viemCount = Math.min(100, signed.length)
  const viemStarted = performance.now()
  for (let i = 0; i < viemCount; i++) {
    const s = signed[i]
    await verifyTypedData({
      address: s.payer,
      domain: {
        name: domain.name,
        version: domain.version,
        chainId: domain.chainId,
        verifyingContract: domain.verifyingContract,
      },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: authorizationOf(s.body),
      signature: s.body.paymentPayload.payload.signature,
    })
  }
  const viemUs = ((performance.now() - viemStarted) * 1000) / viemCount
  return { perSecond, usEach: 1e6 / perSecond, count, viemVerifyTypedDataUs: viemUs }
}

/**
 * The node's ceiling for a settle's chain work: pre-signed `transferWithAuthorization` transactions from one key sent
 * straight to the node at `concurrency` sends in flight, timed from the first send until every one is mined. (A
 * closed-loop variant, each of 32 workers waiting for its transaction to be mined before the next, measured 278 tx/s on a
 * fresh anvil here: a block per transaction; anvil's rate also falls as the chain grows, see bench/README.md.)
 */
export const measureNodeCeiling = async ({
  rpc,
  sender,
  signed,
  chainId,
  token,
  concurrency,
  timeoutMs = 180_000,
  stallMs = 5_000,
}) => {
  const firstNonce = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender.address, 'pending'])))
  const [block, tip] = await Promise.all([
    rpc.call('eth_getBlockByNumber', ['latest', false]),
    rpc.call('eth_maxPriorityFeePerGas'),
  ])
  const fees = {
    maxFeePerGas: BigInt(block.baseFeePerGas ?? '0x0') * 3n + BigInt(tip),
    maxPriorityFeePerGas: BigInt(tip),
  }
  const raws = await signTransfers({ bodies: signed, senderKey: sender.privateKey, firstNonce, chainId, token, fees })
  const target = firstNonce + raws.length
  const hashes = new Array(raws.length)
  let next = 0
  let failures = 0
  const errors = []
  const deadline = performance.now() + timeoutMs
  const startBlock = Number(BigInt(await rpc.call('eth_blockNumber')))
  const started = performance.now()
  const worker = async () => {
    while (next < raws.length && performance.now() < deadline) {
      const i = next++
      try {
        hashes[i] = await rpc.call('eth_sendRawTransaction', [raws[i]])
      } catch (error) {
        failures++
        if (errors.length < 3) errors.push(error.message)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const sentMs = performance.now() - started
  let mined = firstNonce
  let progressAt = performance.now()
  let stalled = false
  while (mined < target && performance.now() < deadline) {
    const now = Number(BigInt(await rpc.call('eth_getTransactionCount', [sender.address, 'latest'])))
    if (now > mined) progressAt = performance.now()
    mined = now
    // A node that stops mining for 5 s has lost a transaction (anvil does, with sends out of nonce order): report it.
    if (performance.now() - progressAt > stallMs) {
      stalled = true
      break
    }
    if (mined < target) await sleep(2)
  }
  const elapsedMs = performance.now() - started - (stalled ? stallMs : 0)
  if (stalled)
    errors.push(
      `the node stopped mining at nonce ${mined} of ${target} (a lost transaction); rate counted up to the stall`,
    )
  const blocks = Number(BigInt(await rpc.call('eth_blockNumber'))) - startBlock
  const receipts = await rpc.batch(hashes.filter(Boolean).map((h) => ['eth_getTransactionReceipt', [h]]))
  const reverted = receipts.filter((r) => r && r.status !== '0x1').length
  return {
    transactions: raws.length,
    perSecond: (mined - firstNonce) / (elapsedMs / 1000),
    sentPerSecond: raws.length / (sentMs / 1000),
    elapsedMs,
    blocks,
    mined: mined - firstNonce,
    failures: failures + reverted,
    unmined: target - mined,
    errors,
  }
}

/** Single-row inserts per second at `concurrency` (one connection each, a prepared statement, autocommit). */
export const measurePgInserts = async ({ connectionString, concurrency, count = 5_000, timeoutMs = 60_000 }) => {
  const table = 'bench_limit_inserts'
  const pool = new pg.Pool({ connectionString, max: concurrency })
  try {
    await pool.query(`drop table if exists ${table}`)
    await pool.query(`create table ${table} (id bigserial primary key, k text not null unique, payer text not null,
      value numeric not null, state text not null, created_at timestamptz not null default now())`)
    // Open every connection first: the measurement is of inserts, not of connecting.
    const clients = await Promise.all(Array.from({ length: concurrency }, () => pool.connect()))
    clients.forEach((c) => c.release())
    const prefix = `${Date.now()}-`
    let next = 0
    let failures = 0
    const deadline = performance.now() + timeoutMs
    const started = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count && performance.now() < deadline) {
          const i = next++
          try {
            await pool.query({
              name: 'bench-insert',
              text: `insert into ${table} (k, payer, value, state) values ($1, $2, $3::numeric, 'claimed')`,
              values: [prefix + i, '0x7e4f01ebd478dc5a4e4546ad1258a57bb63ef15b', '1000000'],
            })
          } catch {
            failures++
          }
        }
      }),
    )
    const elapsedMs = performance.now() - started
    return { inserts: next, perSecond: next / (elapsedMs / 1000), failures, elapsedMs }
  } finally {
    await pool.query(`drop table if exists ${table}`).catch(() => undefined)
    await pool.end().catch(() => undefined)
  }
}
