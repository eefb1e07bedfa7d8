import { getBase64Decoder, type Address } from '@solana/kit'
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
  }
}

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
      const answer =
        handler === undefined
          ? { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `method ${call.method} not served` } }
          : { jsonrpc: '2.0', id: call.id, result: handler(call.params ?? []) }
      response.writeHead(200, { 'content-type': 'application/json' }).end(json(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}
