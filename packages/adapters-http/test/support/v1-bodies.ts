import { PAYEE, PAYER } from './bodies.js'

/** A well-formed x402 v1 body as the legacy `x402` 1.x facilitator client sends it (`x402Version` also at the top). */
export const v1Body = (network = 'base-sepolia', asset: string = `0x${'01'.repeat(20)}`) => ({
  x402Version: 1,
  paymentPayload: {
    x402Version: 1,
    scheme: 'exact',
    network,
    payload: {
      signature: `0x${'11'.repeat(64)}1b`,
      authorization: {
        from: PAYER,
        to: PAYEE,
        value: '1000000',
        validAfter: '0',
        validBefore: '1900000000',
        nonce: `0x${'07'.repeat(32)}`,
      },
    },
  },
  paymentRequirements: {
    scheme: 'exact',
    network,
    maxAmountRequired: '1000000',
    resource: 'http://shop.test/weather',
    description: 'the weather',
    mimeType: 'application/json',
    outputSchema: { input: { type: 'http', method: 'GET', discoverable: true } },
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    asset,
    extra: { name: 'USDC', version: '2' },
  },
})
