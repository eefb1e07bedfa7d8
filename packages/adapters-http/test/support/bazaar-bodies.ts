import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { v2Body } from './bodies.js'
import { v1Body } from './v1-bodies.js'

/**
 * The `bazaar` extension of a GET route as @x402/extensions 2.27 declares it, with the method the resource server's
 * extension adds to each request's copy.
 */
export const weatherExtension = () => {
  const { bazaar } = declareDiscoveryExtension({
    input: { city: 'Paris' },
    inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
    output: { example: { temperature: 12 } },
  }) as unknown as { bazaar: { info: { input: Record<string, unknown> }; schema: Record<string, unknown> } }
  bazaar.info.input.method = 'GET'
  return bazaar
}

/** An x402 v2 settle body that declares its resource for discovery. */
export const v2BodyDeclaring = (
  bazaar: unknown = weatherExtension(),
  resource: Record<string, unknown> = {
    url: 'https://shop.example/weather?city=Paris',
    description: 'Weather by city',
    mimeType: 'application/json',
    serviceName: 'Shop Weather',
    tags: ['weather', 'weather', 'forecast'],
    iconUrl: 'http://127.0.0.1/icon.png',
  },
) => {
  const body = v2Body()
  return { ...body, paymentPayload: { ...body.paymentPayload, resource, extensions: { bazaar } } }
}

/** An x402 v1 body with the `outputSchema` x402-express 1.x sends. */
export const v1BodyDeclaring = (discoverable = true) => {
  const body = v1Body()
  return {
    ...body,
    paymentRequirements: {
      ...body.paymentRequirements,
      outputSchema: { input: { type: 'http', method: 'GET', discoverable }, output: { temperature: 'number' } },
    },
  }
}
