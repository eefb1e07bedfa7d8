import type { PaymentBody } from './test-facilitator.js'

/** The same payment in the x402 v2 dialect: the requirements at the top and under `accepted`. */
export const asX402V2 = (body: PaymentBody) => {
  const { x402Version: _version, ...requirements } = body.paymentRequirements
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload: body.paymentPayload.payload },
    paymentRequirements: requirements,
  }
}
