import type { Server } from 'node:http'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme as ExactEvmClient, toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import express from 'express'
import { privateKeyToAccount } from 'viem/accounts'
import type { TestFacilitator } from './test-facilitator.js'

/** What one paid route of the shop declares: its path, price, description and its bazaar extension's input. */
export interface ShopRoute {
  readonly path: string
  readonly description: string
  readonly amount: string
  /** With `bazaarResourceServerExtension` registered, what `declareDiscoveryExtension` declares; none: undeclared. */
  readonly discovery?: Parameters<typeof declareDiscoveryExtension>[0]
}

export interface OfficialShop {
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  readonly close: () => Promise<void>
}

const caip2Of = (f: TestFacilitator) => `eip155:${f.chain.chainId}` as `${string}:${string}`

/**
 * The official x402 2.27 resource server: @x402/express's `paymentMiddleware` over an `x402ResourceServer` with the
 * exact EVM scheme and the bazaar extension, against the facilitator; each route answers `{ path }` once paid.
 */
export const startOfficialShop = async (
  f: TestFacilitator,
  payTo: Address,
  routes: ReadonlyArray<ShopRoute>,
): Promise<OfficialShop> => {
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: f.base }))
    .register(caip2Of(f), new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension)
  const config = Object.fromEntries(
    routes.map((route) => [
      `GET ${route.path}`,
      {
        accepts: {
          scheme: 'exact',
          network: caip2Of(f),
          payTo,
          price: {
            amount: route.amount,
            asset: f.chain.tokenAddress,
            extra: { name: f.domain.name, version: f.domain.version },
          },
        },
        description: route.description,
        mimeType: 'application/json',
        ...(route.discovery === undefined ? {} : { extensions: declareDiscoveryExtension(route.discovery) }),
      },
    ]),
  )
  const app = express()
  app.use(paymentMiddleware(config, server))
  for (const route of routes) app.get(route.path, (_req, res) => void res.json({ path: route.path }))
  const listening: Server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => listening.once('listening', resolve))
  const address = listening.address()
  if (address === null || typeof address === 'string') throw new Error('the shop does not listen on TCP')
  return {
    base: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve, reject) => listening.close((err) => (err ? reject(err) : resolve()))),
  }
}

/** The official 2.27 client of payer `payer`, allowed to spend the test token (not a default asset) only. */
export const officialClient = (f: TestFacilitator, payer: number) =>
  new x402Client()
    .register('eip155:*', new ExactEvmClient(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))))
    .setSpendControls({ allowedAssets: [{ network: caip2Of(f), asset: f.chain.tokenAddress }] })

/** @x402/fetch 2.27 paying with payer `payer`'s key. */
export const officialFetch = (f: TestFacilitator, payer: number) =>
  wrapFetchWithPayment(fetch, officialClient(f, payer))
