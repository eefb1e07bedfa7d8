import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type Koa from 'koa'

export interface ServerTimeouts {
  /** A client must send its headers within this [10 s]. */
  readonly headersTimeoutMs: number
  /** …and its whole request within this [30 s]. */
  readonly requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this [5 s]. */
  readonly keepAliveTimeoutMs: number
}

export interface ListeningServer {
  readonly url: string
  readonly server: Server
  /** Stops accepting, closes idle connections, waits for the open ones up to `graceMs`, then cuts them. */
  readonly close: (graceMs: number) => Promise<void>
}

/** Slow clients cannot hold connections open: every phase of a request is bounded. */
export const listen = async (
  app: Koa,
  host: string,
  port: number,
  timeouts: ServerTimeouts,
): Promise<ListeningServer> => {
  const server = createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      // How often node looks for connections past those bounds (its default, 30 s, lets a slow client linger).
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs),
    },
    app.callback(),
  )
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // Listening on a host and port (not a pipe): node's `AddressInfo`.
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs)
        server.close(() => {
          clearTimeout(force)
          resolve()
        })
        server.closeIdleConnections()
      }),
  }
}
