export const PAYER = `0x${'12'.repeat(20)}` as const
export const PAYEE = `0x${'34'.repeat(20)}` as const
export const TX_HASH = `0x${'cd'.repeat(32)}` as const

const exactPayload = () => ({
  signature: `0x${'11'.repeat(64)}1b`,
  authorization: { from: PAYER, to: PAYEE, value: '1000000', validAfter: 0, validBefore: 1_900_000_000, nonce: 7 },
})

/** A well-formed body of the spec dialect; its requirements carry spellings and fields the decoder does not keep. */
export const specBody = () => ({
  paymentPayload: { x402Version: '2.0', scheme: 'exact', network: 'eip155:31337', payload: exactPayload() },
  paymentRequirements: {
    x402Version: '2',
    scheme: 'exact',
    network: 'eip155:31337',
    amount: '0xf4240',
    asset: `0x${'aa'.repeat(20)}`,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: 'USD Coin', version: '2' },
  },
})

/** A well-formed x402 v2 body: the requirements twice, under `accepted` and at the top (with a field of its own). */
export const v2Body = () => {
  const { x402Version: _version, extra: _extra, ...accepted } = specBody().paymentRequirements
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted, payload: exactPayload() },
    paymentRequirements: { ...accepted, extra: { name: 'USD Coin', version: '2', only: 'top-level' } },
  }
}

export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
