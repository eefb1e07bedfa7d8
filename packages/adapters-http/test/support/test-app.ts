import type { Server } from 'node:http'
import type { FacilitatorPolicy } from '@x402-facilitator/domain'
import { pino } from 'pino'
import { makeHttpApp, type HttpDeps } from '@x402-facilitator/adapters-http'

export const policy: FacilitatorPolicy = {
  network: 'eip155:31337',
  asset: { address: `0x${'aa'.repeat(20)}`, symbol: 'USDC', decimals: 6 },
  facilitator: `0x${'bb'.repeat(20)}`,
  validityMarginSeconds: 6n,
  receiptTimeoutMs: 30_000,
}

export interface TestApp {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  readonly close: () => Promise<void>
}

/** The HTTP app over the given use cases (stubs), listening on a free local port. */
export const startTestApp = async (
  deps: Pick<HttpDeps, 'verifyPayment' | 'settlePayment' | 'lookUpSettlement'> & Partial<HttpDeps>,
): Promise<TestApp> => {
  const app = makeHttpApp({
    policy,
    caip2Network: 'eip155:31337',
    tokenDomain: { name: 'USD Coin', version: '2' },
    addressChecksum: (lower) => lower,
    logger: pino({ level: 'silent' }),
    ...deps,
  })
  const server: Server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the test app does not listen on a TCP port')
  return {
    base: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  }
}
