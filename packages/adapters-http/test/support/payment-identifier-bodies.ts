import { PAYER, v2Body } from './bodies.js'

/** An x402 v2 Permit2 (`upto`) body paying the same as `v2Body`. */
export const permit2Body = () => {
  const body = v2Body()
  const accepted = { ...body.paymentPayload.accepted, scheme: 'upto' }
  const permit2Authorization = {
    from: PAYER,
    permitted: { token: accepted.asset, amount: '1000000' },
    spender: '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002',
    nonce: '12345',
    deadline: '1900000000',
    witness: { to: accepted.payTo, facilitator: `0x${'77'.repeat(20)}`, validAfter: '0' },
  }
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted,
      payload: { signature: `0x${'11'.repeat(64)}1b`, permit2Authorization },
    },
    paymentRequirements: accepted,
  }
}

/** A body with `extensions` added to its payment payload. */
export const withExtensions = <B extends { paymentPayload: object }>(body: B, extensions: unknown): B => ({
  ...body,
  paymentPayload: { ...body.paymentPayload, extensions },
})

/** `payment-identifier` as @x402/extensions' client leaves it: the server's declaration, and the id. */
export const withPaymentId = <B extends { paymentPayload: object }>(body: B, info: Record<string, unknown>): B =>
  withExtensions(body, { 'payment-identifier': { info, schema: { type: 'object' } } })
