import {
  getBase64Decoder,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Address,
  type Signature,
  type Transaction,
} from '@solana/kit'
import { FailedTransactionMetadata } from 'litesvm'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LocalSvm } from './local-svm.js'

type Handler = (params: ReadonlyArray<unknown>) => unknown

/** u64s leave as bare JSON integers, as a Solana node writes them (kit reads them back as bigint). */
const json = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `__u64__${v}` : v)).replace(
    /"__u64__(\d+)"/g,
    '$1',
  )

const handlersOver = ({ svm }: LocalSvm): Readonly<Record<string, Handler>> => {
  const context = () => ({ slot: svm.getClock().slot })
  return {
    getAccountInfo: ([address]) => {
      const account = svm.getAccount(address as Address)
      const value = account.exists
        ? {
            data: [getBase64Decoder().decode(account.data), 'base64'],
            executable: account.executable,
            lamports: account.lamports,
            owner: account.programAddress,
            rentEpoch: 18446744073709551615n,
            space: account.space,
          }
        : null
      return { context: context(), value }
    },
    // litesvm accepts only its current blockhash; it expires after about 150 slots on a real chain.
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: svm.getClock().slot + 150n },
    }),
    getSlot: () => svm.getClock().slot,
    getBalance: ([address]) => ({ context: context(), value: svm.getBalance(address as Address) ?? 0n }),
    // `sigVerify: false`: the fee payer's signature is still empty when a facilitator simulates.
    simulateTransaction: ([wire, config]) => {
      const sigVerify = (config as { sigVerify?: boolean } | undefined)?.sigVerify !== false
      svm.withSigverify(sigVerify)
      try {
        const result = svm.simulateTransaction(transactionOf(wire))
        const failed = result instanceof FailedTransactionMetadata
        const meta = result.meta()
        return {
          context: context(),
          value: {
            err: failed ? result.toString() : null,
            logs: meta.logs(),
            accounts: null,
            unitsConsumed: meta.computeUnitsConsumed(),
            returnData: null,
          },
        }
      } finally {
        svm.withSigverify(true)
      }
    },
    // As a node with `skipPreflight`: the signature comes back whatever the execution; its status tells.
    sendTransaction: ([wire]) => {
      const transaction = transactionOf(wire)
      svm.sendTransaction(transaction)
      return getSignatureFromTransaction(transaction)
    },
    // Every transaction the SVM executed is `confirmed` at once (slots and finality do not pass here yet).
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as Signature[]).map((signature) => {
        const executed = svm.getTransaction(signature)
        if (executed === null) return null
        const err = executed instanceof FailedTransactionMetadata ? executed.toString() : null
        const status = err === null ? { Ok: null } : { Err: err }
        return { slot: svm.getClock().slot, confirmations: 0, err, status, confirmationStatus: 'confirmed' }
      }),
    }),
  }
}

const transactionOf = (wire: unknown): Transaction =>
  getTransactionDecoder().decode(getBase64Encoder().encode(String(wire)))

/**
 * Standard Solana JSON-RPC over a local SVM, on 127.0.0.1 (the official client takes a URL, never an RPC object): the
 * methods the project and the official stack call, each as a node answers it; any other is a JSON-RPC error.
 */
export const serveSvmJsonRpc = async (chain: LocalSvm): Promise<{ readonly url: string; readonly server: Server }> => {
  const handlers = handlersOver(chain)
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: unknown
        method: string
        params?: unknown[]
      }
      const handler = handlers[call.method]
      const error = (code: number, message: string) => ({ jsonrpc: '2.0', id: call.id, error: { code, message } })
      let answer: unknown
      try {
        answer =
          handler === undefined
            ? error(-32601, `method ${call.method} not served`)
            : { jsonrpc: '2.0', id: call.id, result: handler(call.params ?? []) }
      } catch (thrown) {
        // What the SVM refuses before executing (a signature missing): a node's refusal of the request.
        answer = error(-32002, (thrown as Error).message)
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(json(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}
