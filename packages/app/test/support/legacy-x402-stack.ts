import type { Server } from 'node:http'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import express from 'express'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { wrapFetchWithPayment } from 'x402-fetch'
import { paymentMiddleware } from 'x402-express'
import type { PaymentRequirements } from 'x402/types'
import type { CircleUsdcFacilitator } from './circle-usdc-facilitator.js'

/** The price of the paid resource, in USDC's smallest unit (0.001 USDC). */
export const PRICE = 1_000n

/** The v1 requirements x402-express states for the paid route (the v1 client signs against these). */
export const v1Requirements = (f: CircleUsdcFacilitator, payTo: Address, resource: string): PaymentRequirements => ({
  scheme: 'exact',
  network: 'base-sepolia',
  maxAmountRequired: PRICE.toString(),
  resource,
  description: 'the weather',
  mimeType: 'application/json',
  payTo,
  maxTimeoutSeconds: 60,
  asset: f.usdc.address,
  extra: { ...f.usdc.eip712 },
})

/** A payer's key as a legacy client holds it: a local account (it signs for the chain the requirements name). */
export const legacyWallet = (f: CircleUsdcFacilitator, payer: number) =>
  privateKeyToAccount(f.chain.payers[payer]!.privateKey as Hex)

export interface LegacyResourceServer {
  /** The paid resource's URL. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** x402-express 1.x in front of a GET route priced `PRICE` USDC on base-sepolia, pointed at the facilitator. */
export const startLegacyResourceServer = async (
  f: CircleUsdcFacilitator,
  payTo: Address,
): Promise<LegacyResourceServer> => {
  const app = express()
  app.use(
    paymentMiddleware(
      payTo,
      {
        'GET /weather': {
          price: { amount: PRICE.toString(), asset: { address: f.usdc.address, decimals: 6, eip712: f.usdc.eip712 } },
          network: 'base-sepolia',
          config: { description: 'the weather', mimeType: 'application/json' },
        },
      },
      { url: f.base as `${string}://${string}` },
    ),
  )
  app.get('/weather', (_req, res) => {
    res.json({ report: 'sunny' })
  })
  const server: Server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the resource server does not listen on TCP')
  return {
    url: `http://127.0.0.1:${address.port}/weather`,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  }
}

/** x402-fetch 1.x paying with payer `payer`'s wallet. */
export const legacyFetch = (f: CircleUsdcFacilitator, payer: number) =>
  wrapFetchWithPayment(fetch, legacyWallet(f, payer))
