import {
  address,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  signature as asSignature,
  type Base64EncodedWireTransaction,
} from '@solana/kit'
import { chainUnavailable, type SvmChain, type SvmStatus } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { SvmRpc } from './svm-rpc.js'

const read = <A>(what: string, call: () => Promise<A>): TE.TaskEither<ReturnType<typeof chainUnavailable>, A> =>
  TE.tryCatch(call, (error) => chainUnavailable(`${what}: ${(error as Error).message}`))

const wire = (base64: string) => base64 as Base64EncodedWireTransaction

/** The blockhash a transaction lives by (its message's lifetime token). */
const blockhashOf = (base64: string): string => {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64))
  return getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken
}

/** A token account's amount: a u64 at byte 64, in SPL Token's and Token-2022's layouts alike. */
const amountOf = (data: Uint8Array): bigint | undefined =>
  data.length < 72 ? undefined : new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true)

/** An error as the node put it: a JSON value (`{"InstructionError":[2,{"Custom":1}]}`) or its text. */
const describe = (err: unknown): string =>
  typeof err === 'string' ? err : JSON.stringify(err, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))

/**
 * The SVM mechanism's chain port over standard JSON-RPC: reads at `confirmed` (a supermajority voted for it), sends
 * without preflight (verify simulated already), looks statuses up in the cluster's history.
 */
export const makeSvmChain = (rpc: SvmRpc): SvmChain => ({
  simulate: (base64) =>
    read('simulateTransaction', async () => {
      const { value } = await rpc
        .simulateTransaction(wire(base64), {
          encoding: 'base64',
          sigVerify: false,
          replaceRecentBlockhash: false,
          commitment: 'confirmed',
        })
        .send()
      return value.err === null ? undefined : describe(value.err)
    }),
  // A blockhash that a confirmed bank no longer accepts is too old for any later block: those descend from it.
  landable: (base64) =>
    read('isBlockhashValid', async () => {
      const blockhash = blockhashOf(base64) as Parameters<SvmRpc['isBlockhashValid']>[0]
      return (await rpc.isBlockhashValid(blockhash, { commitment: 'confirmed' }).send()).value
    }),
  tokenBalance: (account) =>
    read('getAccountInfo', async () => {
      const { value } = await rpc
        .getAccountInfo(address(account), { encoding: 'base64', commitment: 'confirmed' })
        .send()
      return value === null ? undefined : amountOf(getBase64Encoder().encode(value.data[0]) as Uint8Array)
    }),
  lamports: (account) =>
    read('getBalance', async () => (await rpc.getBalance(address(account), { commitment: 'confirmed' }).send()).value),
  blockHashAt: (slot) =>
    read('getBlock', async () => {
      const block = await rpc
        .getBlock(slot, {
          commitment: 'confirmed',
          transactionDetails: 'none',
          rewards: false,
          maxSupportedTransactionVersion: 0,
        })
        .send()
      if (block === null) throw new Error(`no block at slot ${slot}`)
      return block.blockhash
    }),
  send: (base64) =>
    read('sendTransaction', async () => {
      await rpc.sendTransaction(wire(base64), { encoding: 'base64', skipPreflight: true }).send()
    }),
  statuses: (signatures) =>
    read('getSignatureStatuses', async () => {
      const { value } = await rpc
        .getSignatureStatuses(
          signatures.map((s) => asSignature(s)),
          { searchTransactionHistory: true },
        )
        .send()
      const found = new Map<string, SvmStatus>()
      value.forEach((status, i) => {
        if (status === null || status.confirmationStatus === null) return
        const err = status.err === null ? null : describe(status.err)
        found.set(signatures[i]!, { slot: status.slot, commitment: status.confirmationStatus, err })
      })
      return found
    }),
})
