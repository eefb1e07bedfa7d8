import {
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Address,
  type Signature,
  type Transaction,
} from '@solana/kit'
import { getMintDecoder, getTokenDecoder } from '@solana-program/token'
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

const handlersOver = (chain: LocalSvm): Readonly<Record<string, Handler>> => {
  const { svm } = chain
  const context = () => ({ slot: chain.slot() })
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
    getLatestBlockhash: () => ({ context: context(), value: chain.latestBlockhash() }),
    isBlockhashValid: ([blockhash]) => ({ context: context(), value: chain.blockhashValid(String(blockhash)) }),
    getSlot: () => chain.slot(),
    // No slot is skipped here: the block height is the slot.
    getBlockHeight: () => chain.slot(),
    // A block as `transactionDetails: "none"` asks it: its hash and height (the slot: none is skipped here).
    getBlock: ([slot]) => {
      const blockhash = chain.blockHashAt(BigInt(slot as number))
      if (blockhash === undefined) throw new Error(`Slot ${String(slot)} was skipped, or missing in long-term storage`)
      const at = BigInt(slot as number)
      return {
        blockhash,
        previousBlockhash: chain.blockHashAt(at - 1n) ?? blockhash,
        parentSlot: at - 1n,
        blockHeight: at,
        blockTime: null,
      }
    },
    getBalance: ([address]) => ({ context: context(), value: svm.getBalance(address as Address) ?? 0n }),
    getTokenAccountBalance: ([address]) => {
      const account = svm.getAccount(address as Address)
      if (!account.exists) throw new Error(`Invalid param: could not find account ${String(address)}`)
      const { amount } = getTokenDecoder().decode(account.data)
      const mint = svm.getAccount(chain.mint)
      const decimals = mint.exists ? getMintDecoder().decode(mint.data).decimals : 0
      return { context: context(), value: { amount: amount.toString(), decimals, uiAmount: null, uiAmountString: '' } }
    },
    // `sigVerify: false`: the fee payer's signature is still empty when a facilitator simulates.
    simulateTransaction: ([wire, config]) => {
      const transaction = transactionOf(wire)
      const sigVerify = (config as { sigVerify?: boolean } | undefined)?.sigVerify !== false
      if (!chain.blockhashValid(blockhashOf(transaction)))
        return { context: context(), value: { err: 'BlockhashNotFound', logs: [], accounts: null, unitsConsumed: 0n } }
      svm.withSigverify(sigVerify)
      try {
        const result = svm.simulateTransaction(transaction)
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
    // As a node with `skipPreflight`: the signature comes back whatever becomes of it; its status tells.
    sendTransaction: ([wire]) => {
      const transaction = transactionOf(wire)
      chain.execute(transaction)
      return getSignatureFromTransaction(transaction)
    },
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as Signature[]).map((signature) => {
        const status = chain.statusOf(signature)
        if (status === undefined) return null
        const { slot, commitment, confirmations, err } = status
        return {
          slot,
          confirmations: commitment === 'finalized' ? null : confirmations,
          err,
          status: err === null ? { Ok: null } : { Err: err },
          confirmationStatus: commitment,
        }
      }),
    }),
  }
}

const blockhashOf = (transaction: Transaction): string =>
  getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken

const transactionOf = (wire: unknown): Transaction =>
  getTransactionDecoder().decode(getBase64Encoder().encode(String(wire)))

/**
 * Standard Solana JSON-RPC over a local SVM, on 127.0.0.1 (the official client takes a URL, never an RPC object): the
 * methods the project and the official stack call, each as a node answers it; any other is a JSON-RPC error.
 */
export const serveSvmJsonRpc = async (
  chain: LocalSvm,
): Promise<{ readonly url: string; readonly server: Server; readonly setDown: (down: boolean) => void }> => {
  const handlers = handlersOver(chain)
  // A node that is down answers nothing a client can use: 503 to every call, until it is back.
  let down = false
  const server = createServer((request, response) => {
    if (down) {
      request.resume()
      response.writeHead(503).end()
      return
    }
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
  const setDown = (value: boolean) => {
    down = value
  }
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, setDown }
}
