// The local Solana chain in a process of its own (bench/lib/setup/solana.mjs forks it): the real SVM (litesvm) behind
// standard JSON-RPC on 127.0.0.1, a slot every `slotMs`, a USDC-like mint, a fee payer funded with SOL and its key
// written to `keysFile`. Its own process so that its CPU is counted apart (as anvil's is) and its event loop does not
// share the load generator's. It answers the bench's set-up and checks over IPC, and ends when the bench does (its IPC
// channel closes, however the bench ended).
import { writeFileSync } from 'node:fs'
import { generateKeyPairSigner, lamports } from '@solana/kit'
import { extractableKeyPair, LocalSvm, serveSvmJsonRpc } from '@x402-facilitator/adapters-chain/testing/svm'

const [slotMs, keysFile] = [Number(process.argv[2]), process.argv[3]]
/** SOL the fee payer holds: 100 SOL, a fee of 5,000 lamports a settle. */
const FEE_PAYER_LAMPORTS = 100_000_000_000n

process.on('disconnect', () => process.exit(0))

const svm = await LocalSvm.start()
// litesvm keeps the last 500 transactions by default: older signatures then read as never executed (and a duplicate of
// one could run again), where a cluster knows every signature of a blockhash's lifetime. A run's every settlement is
// checked after its phase: all of them kept.
svm.svm.withTransactionHistory(1_000_000n)
const { url, server } = await serveSvmJsonRpc(svm)
// Every JSON-RPC request counted by method (the service's own counters count only its EVM nodes' requests).
const requests = {}
server.prependListener('request', (request) => {
  let body = ''
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    try {
      const { method } = JSON.parse(body)
      requests[method] = (requests[method] ?? 0) + 1
    } catch {
      requests['(unreadable)'] = (requests['(unreadable)'] ?? 0) + 1
    }
  })
})
svm.run(slotMs)
const { signer: feePayer, secret } = await extractableKeyPair()
svm.svm.airdrop(feePayer.address, lamports(FEE_PAYER_LAMPORTS))
writeFileSync(keysFile, `${secret}\n`, { mode: 0o600 })

const commands = {
  /** `count` fresh payers, each holding `tokens` units of the mint in its token account: [{ address, secret }]. */
  fund: async ({ count, tokens }) => {
    const payers = []
    for (let i = 0; i < count; i++) {
      const { signer, secret: key } = await extractableKeyPair()
      await svm.fundedAccount(BigInt(tokens), undefined, signer)
      payers.push({ address: signer.address, secret: key })
    }
    return payers
  },
  /** A fresh payee whose token account exists (the exact scheme never creates it). */
  payee: async () => {
    const { address } = await generateKeyPairSigner()
    await svm.openTokenAccount(address)
    return address
  },
  /** Token balances (decimal strings) of `owners`, in order. */
  balances: async ({ owners }) => Promise.all(owners.map(async (o) => (await svm.tokenBalanceOf(o)).toString())),
  lamports: ({ address }) => (svm.svm.getBalance(address) ?? 0n).toString(),
  /** Each signature's slot, commitment and error, or null when the chain never executed it. */
  statuses: ({ signatures }) =>
    signatures.map((s) => {
      const status = svm.statusOf(s)
      return status ? { slot: Number(status.slot), commitment: status.commitment, err: status.err } : null
    }),
  slot: () => Number(svm.slot()),
  requests: () => ({ ...requests }),
}

process.on('message', async ({ id, command, args }) => {
  try {
    process.send({ id, result: await commands[command](args ?? {}) })
  } catch (error) {
    process.send({ id, error: error?.stack ?? String(error) })
  }
})
process.send({ ready: { rpcUrl: url, mint: svm.mint, feePayer: feePayer.address } })
