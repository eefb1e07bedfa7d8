#!/usr/bin/env node
// `node bench/node-batch-ceiling.mjs [--payments N] [--batch B] [--rounds R]`: the node alone, no service: lone against
// batched. On a fresh local anvil each round measures the bench's node ceiling (N pre-signed `transferWithAuthorization`
// transactions from one key at concurrency 32, bench/lib/limits.mjs), then sends as many payments in pre-signed
// BatchSettler `settle` calls of B items from another key, one after another in nonce order (out of order, anvil may
// park one for good: bench/anvil-send-order.mjs), and reports payments mined per second and anvil's CPU per payment:
// what batching changes in the node's own work, without the service's trials, receipt reads and polling.
// Run `npm run build` first.
import { parseArgs } from 'node:util'
import { batchSettlerAbi, deploySettler } from '@x402-facilitator/adapters-chain'
import { startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { encodeFunctionData, numberToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { round, sleep } from './lib/basics.mjs'
import { measureNodeCeiling } from './lib/limits.mjs'
import { freshAccount, freshAddress, signBodies } from './lib/payments.mjs'
import { treeCpuMs } from './lib/proc.mjs'
import { makeRpc } from './lib/rpc.mjs'
import { readTokenDomain } from './lib/setup/chain.mjs'

const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' },
  },
})
const payments = Number(values.payments)
const batchSize = Number(values.batch)

/** `settle(items)` of BatchSettler for signed bodies, as the service encodes it (adapters-chain settler-batch.ts). */
const settleCallData = (bodies) =>
  encodeFunctionData({
    abi: batchSettlerAbi,
    functionName: 'settle',
    args: [
      bodies.map(({ body }) => {
        const { authorization: a, signature } = body.paymentPayload.payload
        return {
          from: a.from,
          to: a.to,
          value: BigInt(a.value),
          validAfter: BigInt(a.validAfter),
          validBefore: BigInt(a.validBefore),
          nonce: a.nonce,
          signature,
        }
      }),
    ],
  })

const feesNow = async (rpc) => {
  const block = await rpc.call('eth_getBlockByNumber', ['latest', false])
  return { maxFeePerGas: BigInt(block.baseFeePerGas) * 3n + 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n }
}

/** Sends `raws` of `sender` (nonces from `firstNonce`) in order; payments mined per second and anvil's µs per payment. */
const timed = async ({ rpc, anvilPid, sender, firstNonce, raws, count, timeoutMs = 120_000 }) => {
  const cpuBefore = treeCpuMs(anvilPid)
  const started = performance.now()
  for (const raw of raws) await rpc.call('eth_sendRawTransaction', [raw])
  const target = firstNonce + raws.length
  while (Number(BigInt(await rpc.call('eth_getTransactionCount', [sender.address, 'latest']))) < target) {
    if (performance.now() - started > timeoutMs) throw new Error(`not all mined within ${timeoutMs} ms`)
    await sleep(2)
  }
  const seconds = (performance.now() - started) / 1000
  return { perSecond: count / seconds, anvilUs: ((treeCpuMs(anvilPid) - cpuBefore) * 1000) / count }
}

const chain = await startLocalChain({ payers: 8, payerBalance: 10n ** 15n })
const rpc = makeRpc(chain.rpcUrl, 32)
try {
  const domain = await readTokenDomain({ rpcUrl: chain.rpcUrl, token: chain.tokenAddress })
  const sign = (count) =>
    signBodies({
      count,
      payers: chain.payers,
      payTo: freshAddress(),
      value: 10_000n,
      network: `eip155:${chain.chainId}`,
      domain,
    })
  const nonceOf = async (account) =>
    Number(BigInt(await rpc.call('eth_getTransactionCount', [account.address, 'pending'])))
  const settlerKey = freshAccount()
  await rpc.call('anvil_setBalance', [settlerKey.address, numberToHex(10n ** 22n)])
  const { address: settler } = await deploySettler({
    rpcUrl: chain.rpcUrl,
    token: chain.tokenAddress,
    deployerKey: settlerKey.privateKey,
    settlers: [settlerKey.address],
    pollingIntervalMs: 20,
  })
  const settlerAccount = privateKeyToAccount(settlerKey.privateKey)
  for (let r = 1; r <= Number(values.rounds); r++) {
    // A fresh sender each round: a transaction anvil parked (see above) would hold back every later one of its key.
    const loneKey = freshAccount()
    await rpc.call('anvil_setBalance', [loneKey.address, numberToHex(10n ** 22n)])
    const loneSigned = await sign(payments)
    const cpuBefore = treeCpuMs(chain.anvilPid)
    const ceiling = await measureNodeCeiling({
      rpc,
      sender: loneKey,
      signed: loneSigned,
      chainId: chain.chainId,
      token: chain.tokenAddress,
      concurrency: 32,
    })
    if (ceiling.unmined > 0) console.log(`round ${r}: ${ceiling.errors.join('; ')}`)
    const lone = { perSecond: ceiling.perSecond, anvilUs: ((treeCpuMs(chain.anvilPid) - cpuBefore) * 1000) / payments }
    const signed = await sign(payments)
    const firstNonce = await nonceOf(settlerKey)
    const fees = await feesNow(rpc)
    const batchRaws = []
    for (let i = 0; i * batchSize < signed.length; i++) {
      const items = signed.slice(i * batchSize, (i + 1) * batchSize)
      const gas = 400_000n + 90_000n * BigInt(items.length)
      batchRaws.push(
        await settlerAccount.signTransaction({
          type: 'eip1559',
          chainId: chain.chainId,
          nonce: firstNonce + i,
          to: settler,
          data: settleCallData(items),
          gas,
          value: 0n,
          ...fees,
        }),
      )
    }
    const batched = await timed({
      rpc,
      anvilPid: chain.anvilPid,
      sender: settlerKey,
      firstNonce,
      raws: batchRaws,
      count: payments,
    })
    console.log(
      `round ${r}: lone ${round(lone.perSecond, 0)} payments/s, anvil ${round(lone.anvilUs, 0)} µs each; ` +
        `batched (${batchRaws.length} × ${batchSize}) ${round(batched.perSecond, 0)} payments/s, anvil ${round(batched.anvilUs, 0)} µs each: ` +
        `${round(batched.perSecond / lone.perSecond, 2)} × the lone rate`,
    )
  }
} finally {
  rpc.close()
  await chain.stop()
}
