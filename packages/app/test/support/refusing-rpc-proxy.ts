import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A JSON-RPC proxy in front of anvil that can refuse broadcasts: once armed, every `eth_sendRawTransaction` is
 * answered with a JSON-RPC error, as a node that will never take the transaction does; everything else is forwarded.
 */
export interface RefusingRpcProxy {
  readonly url: string
  /** Where calls are forwarded (the chain's URL, known once it has started). */
  target: string
  /** Refuse broadcasts with `message` (undefined: refuse none); `only`: just the raw transactions it picks. */
  readonly refuseBroadcasts: (message: string | undefined, only?: (raw: string) => boolean) => void
  /**
   * Runs `first` (say, mining the block that holds it) before the next broadcast of `raw` reaches the node: the chain
   * moves between what the caller read and its send. Once.
   */
  readonly beforeBroadcastOf: (raw: string, first: () => Promise<unknown>) => void
  /**
   * `eth_getTransactionByHash` of these hashes answers null, as a node behind a load balancer that never saw them does
   * (another node's pool holds them); empty: none hidden.
   */
  readonly hideTransactions: (hashes: ReadonlyArray<string>) => void
  /** How many calls of `method` were forwarded or answered so far (a batch counts each of its calls). */
  readonly callsOf: (method: string) => number
  readonly close: () => Promise<void>
}

type Call = { readonly id?: unknown; readonly method?: string; readonly params?: ReadonlyArray<unknown> }

export const startRefusingRpcProxy = async (): Promise<RefusingRpcProxy> => {
  let refusal: string | undefined
  let refused: (raw: string) => boolean = () => true
  let before: { raw: string; first: () => Promise<unknown> } | undefined
  let hidden = new Set<string>()
  const callCounts = new Map<string, number>()
  const proxy: RefusingRpcProxy = {
    url: '',
    target: '',
    refuseBroadcasts: (message, only = () => true) => {
      refusal = message
      refused = only
    },
    beforeBroadcastOf: (raw, first) => {
      before = { raw: raw.toLowerCase(), first }
    },
    hideTransactions: (hashes) => {
      hidden = new Set(hashes.map((h) => h.toLowerCase()))
    },
    callsOf: (method) => callCounts.get(method) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  /** The node's answer, with a null result for each hidden transaction asked for (alone or in a batch). */
  const withHidden = (call: Call | Call[], text: string): string => {
    const isHidden = (c: Call) =>
      c.method === 'eth_getTransactionByHash' && hidden.has(String(c.params?.[0]).toLowerCase())
    const asked = (Array.isArray(call) ? call : [call]).filter(isHidden).map((c) => c.id)
    if (asked.length === 0) return text
    const answered = JSON.parse(text) as { id?: unknown } | Array<{ id?: unknown }>
    const hide = (a: { id?: unknown }) => (asked.includes(a.id) ? { jsonrpc: '2.0', id: a.id, result: null } : a)
    return JSON.stringify(Array.isArray(answered) ? answered.map(hide) : hide(answered))
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const call = JSON.parse(body) as Call | Call[]
      for (const c of Array.isArray(call) ? call : [call]) {
        callCounts.set(String(c.method), (callCounts.get(String(c.method)) ?? 0) + 1)
      }
      if (
        refusal !== undefined &&
        !Array.isArray(call) &&
        call.method === 'eth_sendRawTransaction' &&
        refused(String(call.params?.[0]).toLowerCase())
      ) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32000, message: refusal } }))
        return
      }
      const calls = Array.isArray(call) ? call : [call]
      const awaited = before
      const hit = calls.some(
        (c) => c.method === 'eth_sendRawTransaction' && String(c.params?.[0]).toLowerCase() === awaited?.raw,
      )
      if (hit) before = undefined
      const forward = () =>
        fetch(proxy.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ;(hit ? awaited!.first().then(forward) : forward()).then(
        async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' })
          res.end(withHidden(call, await answer.text()))
        },
        () => res.destroy(),
      )
    })
  })
  server.keepAliveTimeout = 1_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  Object.assign(proxy, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  return proxy
}
