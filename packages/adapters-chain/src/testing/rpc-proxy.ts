import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** One JSON-RPC call as the proxy sees it. */
export interface ProxiedCall {
  readonly id: unknown
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

/**
 * What the proxy does with a call: undefined forwards it to the node; `{ result }` answers it in the node's place
 * (the node never sees it), and with `thenDie` the proxy closes once that answer is out (a node that took a
 * transaction and died before passing it on); 'forward, then die': the node gets the request, its answer is lost (the
 * proxy cuts the connection and closes); 'forward, answer, then die': the node's answer is passed back, then the proxy
 * closes (a node that took a transaction and died before its receipt).
 */
export type ProxyAnswer = (
  call: ProxiedCall,
) =>
  | { readonly result: unknown; readonly thenDie?: boolean }
  | 'forward, then die'
  | 'forward, answer, then die'
  | undefined

export interface RpcProxy {
  readonly url: string
  readonly port: number
  /** Calls received, by method (a batch counts each of its calls). */
  readonly calls: Map<string, number>
  /** Stops listening and cuts every connection: from now on the URL refuses connections (a dead node). */
  readonly close: () => Promise<void>
  /** Listens again on the same port. */
  readonly reopen: () => Promise<void>
}

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })

/** An HTTP proxy in front of a node's RPC URL, which a test closes to kill "the node" behind one URL. */
export const startRpcProxy = async (target: string, answer: ProxyAnswer = () => undefined): Promise<RpcProxy> => {
  const calls = new Map<string, number>()
  const sockets = new Set<Socket>()

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await body(req)
    const parsed = JSON.parse(text) as ProxiedCall | ProxiedCall[]
    const all = Array.isArray(parsed) ? parsed : [parsed]
    for (const call of all) calls.set(call.method, (calls.get(call.method) ?? 0) + 1)
    const given = all.map((call) => answer(call))
    const dieAfterForwarding = given.includes('forward, then die')
    const dieAfterAnswering = given.includes('forward, answer, then die')
    const answers = given.map((a) => (typeof a === 'string' ? undefined : a))
    const forwarded = all.filter((_, k) => answers[k] === undefined)
    let fromNode: Array<{ id: unknown }> = []
    if (forwarded.length > 0) {
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(forwarded),
      })
      fromNode = (await response.json()) as Array<{ id: unknown }>
    }
    if (dieAfterForwarding) {
      res.destroy()
      await close()
      return
    }
    const merged = all.map(
      (call, k) => answers[k] ?? fromNode.find((a) => a.id === call.id) ?? { error: { code: -1, message: 'lost' } },
    )
    const out = all.map((call, k) => {
      const { thenDie: _, ...answered } = merged[k] as { thenDie?: boolean }
      return { jsonrpc: '2.0', id: call.id, ...answered }
    })
    if (dieAfterAnswering || answers.some((a) => a?.thenDie)) res.on('finish', () => void close())
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]))
  }

  const open = () => {
    const server = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy())
    })
    server.on('connection', (socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    return server
  }

  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      for (const socket of sockets) socket.destroy()
    })
  let server = open()
  const port = await listen(server, 0)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    close,
    reopen: async () => {
      server = open()
      await listen(server, port)
    },
  }
}

/** A port nothing listens on (asked of the kernel, then freed): connections to it are refused. */
export const deadPort = async (): Promise<number> => {
  const server = createServer()
  const port = await listen(server, 0)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
