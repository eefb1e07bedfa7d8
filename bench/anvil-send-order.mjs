// Reproduces why the submitter sends through one ordered lane: 600 pre-signed transfers from one key, sent at
// concurrency 32 in shuffled windows of 32 (as concurrent settles reach the node), N trials on one anvil.
//   node bench/anvil-send-order.mjs concurrent   # 32 single sends in flight: anvil sometimes parks one in its queued pool for good
//   node bench/anvil-send-order.mjs lane         # one batch in flight, sorted by nonce (the submitter's way)
import { startLocalChain } from '@x402-facilitator/adapters-chain/testing'
import { numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { makeRpc } from './lib/rpc.mjs'

const mode = process.argv[2] === 'lane' ? 'lane' : 'concurrent'
const trials = Math.min(Number(process.argv[3] ?? 8), 50)
const N = 600
const chain = await startLocalChain({ payers: 1 })
const rpc = makeRpc(chain.rpcUrl, 32)
let stalls = 0
try {
  for (let trial = 0; trial < trials; trial++) {
    const account = privateKeyToAccount(generatePrivateKey())
    await rpc.call('anvil_setBalance', [account.address, numberToHex(10n ** 21n)])
    const raws = []
    for (let i = 0; i < N; i++)
      raws.push(
        await account.signTransaction({
          type: 'eip1559',
          chainId: chain.chainId,
          nonce: i,
          to: '0x00000000000000000000000000000000000000f1',
          gas: 21_000n,
          value: 1n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        }),
      )
    const order = []
    for (let w = 0; w < N; w += 32)
      order.push(...Array.from({ length: Math.min(32, N - w) }, (_, k) => w + k).sort(() => Math.random() - 0.5))
    let next = 0
    const firstBlock = Number(await rpc.call('eth_blockNumber'))
    const started = performance.now()
    if (mode === 'concurrent') {
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < N) await rpc.call('eth_sendRawTransaction', [raws[order[next++]]])
        }),
      )
    } else {
      let lane = []
      let sending = false
      const waiters = new Map()
      const pump = async () => {
        if (sending || lane.length === 0) return
        const batch = lane.sort((a, b) => a - b)
        lane = []
        sending = true
        try {
          await rpc.batch(batch.map((i) => ['eth_sendRawTransaction', [raws[i]]]))
        } finally {
          sending = false
        }
        for (const i of batch) waiters.get(i)()
        void pump()
      }
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < N) {
            const i = order[next++]
            await new Promise((resolve) => {
              waiters.set(i, resolve)
              lane.push(i)
              setImmediate(pump)
            })
          }
        }),
      )
    }
    let mined = 0
    let at = performance.now()
    for (let k = 0; k < 2_000 && mined < N && performance.now() - at < 3_000; k++) {
      const now = Number(await rpc.call('eth_getTransactionCount', [account.address, 'latest']))
      if (now > mined) at = performance.now()
      mined = now
      if (mined < N) await new Promise((r) => setTimeout(r, 5))
    }
    if (mined < N) stalls++
    const blocks = Number(await rpc.call('eth_blockNumber')) - firstBlock
    console.log(
      `${mode} trial ${trial + 1}: ${mined}/${N} mined${mined < N ? ` — STALLED, pool ${JSON.stringify(await rpc.call('txpool_status'))}` : ` in ${(performance.now() - started).toFixed(0)} ms, ${blocks} blocks`}`,
    )
  }
  console.log(`${mode}: ${stalls} of ${trials} trials stalled`)
} finally {
  await rpc.close()
  await chain.stop()
}
