import { explainMechanismFailure } from '@x402-facilitator/domain'
import type { Server } from 'node:http'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { FacilitatorPolicy, ServedNetwork } from '@x402-facilitator/domain'
import { pino } from 'pino'
import { makeHttpApp, type HttpDeps } from '@x402-facilitator/adapters-http'

export const policy: FacilitatorPolicy = {
  network: 'eip155:31337',
  asset: { address: `0x${'aa'.repeat(20)}`, symbol: 'USDC', decimals: 6 },
  facilitator: `0x${'bb'.repeat(20)}`,
  validityMarginSeconds: 6n,
  receiptTimeoutMs: 30_000,
}

/** The one network served by default: the policy's, with its token. */
export const servedNetwork: ServedNetwork = {
  name: policy.network,
  caip2: 'eip155:31337',
  signers: [policy.facilitator],
  tokens: [{ ...policy.asset, eip712: { name: 'USD Coin', version: '2' }, minAmount: 1n }],
}

export interface TestApp {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  readonly close: () => Promise<void>
}

/**
 * The HTTP app over the given use cases (stubs), listening on a free local port; a lookup by authorization not given
 * answers the journal unavailable.
 */
export const startTestApp = async (
  deps: Pick<HttpDeps, 'verifyPayment' | 'settlePayment' | 'lookUpSettlement'> & Partial<HttpDeps>,
): Promise<TestApp> => {
  const app = makeHttpApp({
    networks: [servedNetwork],
    facilitator: policy.facilitator,
    lookUpSettlementsByAuthorization: () => TE.left({ _tag: 'JournalUnavailable', reason: 'not under test' }),
    addressChecksum: (lower) => lower,
    explainMechanismRefusal: explainMechanismFailure,
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
