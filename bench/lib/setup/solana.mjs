// The --solana mode's chain: the local SVM in a process of its own (bench/lib/setup/svm-node.mjs: the real SVM behind
// standard JSON-RPC, a slot every 100 ms, a mint, a funded fee payer whose key it writes to a file), the payers funded
// there, and the service's settings that serve it beside the EVM network (SOLANA_NETWORKS, docs/CONFIGURATION.md).
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit'
import { LOCAL_SVM_NETWORK } from '@x402-facilitator/adapters-chain/testing/svm'
import { say } from '../basics.mjs'
import { onCleanUp } from '../cleanup.mjs'

const NODE = fileURLToPath(new URL('./svm-node.mjs', import.meta.url))
/** A slot every 100 ms: a blockhash lives 150 slots, 15 s (a cluster's slot is 400 ms). */
const SLOT_MS = 100
/** Mint units each payer holds: 10^12 (a million USDC of 6 decimals), as plenty as the EVM payers' demo token. */
const PAYER_UNITS = 10n ** 12n

/** The SVM node's process, spoken to over IPC: { pid, rpcUrl, mint, feePayer, call(command, args) }. */
const startSvmNode = async (keysFile) => {
  const child = fork(NODE, [String(SLOT_MS), keysFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  // Its IPC channel closing ends it (bench/lib/setup/svm-node.mjs): here, or when this process ends in any way.
  onCleanUp(async () => {
    if (child.connected) child.disconnect()
    if (child.exitCode === null && child.signalCode === null) await exited
  })
  const pending = new Map()
  let nextId = 0
  const ready = new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.ready) return resolve(message.ready)
      const waiter = pending.get(message.id)
      pending.delete(message.id)
      if (message.error) waiter?.reject(new Error(`svm node: ${message.error}`))
      else waiter?.resolve(message.result)
    })
    void exited.then((code) => {
      const error = new Error(`the svm node exited (${code})`)
      reject(error)
      for (const waiter of pending.values()) waiter.reject(error)
    })
  })
  const call = (command, args) =>
    new Promise((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve, reject })
      child.send({ id, command, args })
    })
  return { pid: child.pid, ...(await ready), call }
}

/**
 * { network (its CAIP-2 id), rpcUrl, mint, feePayer (address), payers (KeyPairSigners), nodePid, call, env (the
 * service's SOLANA_* settings) }
 */
export const setUpSolana = async ({ payers: payerCount }) => {
  say(`starting the local SVM (its own process, a slot every ${SLOT_MS} ms: mint, fee payer, ${payerCount} payers)…`)
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-svm-'))
  onCleanUp(() => rmSync(dir, { recursive: true, force: true }))
  const keysFile = path.join(dir, 'fee-payers')
  const node = await startSvmNode(keysFile)
  const funded = await node.call('fund', { count: payerCount, tokens: PAYER_UNITS.toString() })
  const payers = await Promise.all(
    funded.map(({ secret }) => createKeyPairSignerFromBytes(getBase58Encoder().encode(secret))),
  )
  const network = {
    caip2: LOCAL_SVM_NETWORK,
    rpcUrls: [node.rpcUrl],
    tokens: [{ address: node.mint, symbol: 'USDC', decimals: 6 }],
  }
  return {
    network: LOCAL_SVM_NETWORK,
    rpcUrl: node.rpcUrl,
    mint: node.mint,
    feePayer: node.feePayer,
    payers,
    nodePid: node.pid,
    call: node.call,
    env: {
      SOLANA_NETWORKS: JSON.stringify([network]),
      SOLANA_FEE_PAYER_KEYS_FILE: keysFile,
      // A settle reads its transaction's status this often while it waits (250 ms by default: a slot here is 100).
      SOLANA_STATUS_POLL_MS: '20',
    },
  }
}
