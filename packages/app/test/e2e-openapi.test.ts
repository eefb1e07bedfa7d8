import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { isX402V1Body, isX402V2Body, specDialect, x402V1Dialect, x402V2Dialect } from '@x402-facilitator/adapters-http'
import { makeEip55AddressChecksum } from '@x402-facilitator/adapters-chain'
import { anvilRpc } from './support/chain-control.js'
import { makeOpenApiValidator } from './support/openapi-validator.js'
import { startTestFacilitator, type PaymentBody, type TestFacilitator } from './support/test-facilitator.js'

const checksum = makeEip55AddressChecksum()
const network = {
  name: 'eip155:31337',
  caip2: 'eip155:31337',
  signers: [`0x${'bb'.repeat(20)}` as const],
  tokens: [
    {
      address: `0x${'aa'.repeat(20)}` as const,
      symbol: 'USDC',
      decimals: 6,
      eip712: { name: 'USD Coin', version: '2' },
      minAmount: 1n,
    },
  ],
}
const spec = specDialect({ addressChecksum: checksum })
const v2 = x402V2Dialect({ networks: [network], addressChecksum: checksum })
// x402 v1 names a network by its own list: base-sepolia is chain 84532.
const v1 = x402V1Dialect({
  networks: [{ ...network, name: 'base-sepolia', caip2: 'eip155:84532' }],
  addressChecksum: checksum,
})
const decodes = (body: unknown) => E.isRight((isX402V2Body(body) ? v2 : isX402V1Body(body) ? v1 : spec).decode(body))

const specBody = () => ({
  paymentPayload: {
    x402Version: '2.0',
    scheme: 'exact',
    network: 'eip155:31337',
    payload: {
      signature: `0x${'11'.repeat(64)}1b`,
      authorization: {
        from: `0x${'12'.repeat(20)}`,
        to: `0x${'34'.repeat(20)}`,
        value: '1000000',
        validAfter: 0,
        validBefore: 1_900_000_000,
        nonce: 7,
      },
    },
  },
  paymentRequirements: {
    scheme: 'exact',
    network: 'eip155:31337',
    amount: '1000000',
    asset: `0x${'aa'.repeat(20)}`,
    payTo: `0x${'34'.repeat(20)}`,
    maxTimeoutSeconds: 60,
  },
})
const v2Body = () => {
  const b = specBody()
  const { paymentRequirements } = b
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: paymentRequirements, payload: b.paymentPayload.payload },
    paymentRequirements,
  }
}
/** A Permit2 payload as @x402/evm 2.27 makes it (`upto` adds `witness.facilitator`). */
const permit2Body = (extensions?: unknown) => {
  const b = v2Body() as unknown as Record<string, Record<string, unknown>>
  b.paymentPayload!.payload = {
    signature: `0x${'11'.repeat(64)}1b`,
    permit2Authorization: {
      from: `0x${'12'.repeat(20)}`,
      permitted: { token: `0x${'aa'.repeat(20)}`, amount: '1000000' },
      spender: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
      nonce: '114427573590816546286636498760276347124416631003012783208779909889867175779139',
      deadline: '1795560501',
      witness: { to: `0x${'34'.repeat(20)}`, validAfter: '0' },
    },
  }
  if (extensions !== undefined) b.paymentPayload!.extensions = extensions
  return b
}
const withExtensions = (b: ReturnType<typeof v2Body>, extensions: unknown) => ({
  ...b,
  paymentPayload: { ...b.paymentPayload, extensions },
})
/** An x402 v1 body as the legacy x402 1.x client sends it. */
const v1Body = (): Record<string, Record<string, unknown>> => {
  const { amount, ...requirements } = specBody().paymentRequirements
  return {
    x402Version: 1 as unknown as Record<string, unknown>,
    paymentPayload: { ...specBody().paymentPayload, x402Version: 1, network: 'base-sepolia' },
    paymentRequirements: {
      ...requirements,
      network: 'base-sepolia',
      maxAmountRequired: amount,
      resource: 'http://shop.test/weather',
      description: 'the weather',
      mimeType: 'application/json',
      outputSchema: { input: { type: 'http', method: 'GET' } },
      extra: { name: 'USD Coin', version: '2' },
    },
  }
}
const v1Cases: Array<[string, () => unknown]> = [
  ['the x402 v1 sample', v1Body],
  [
    'x402 v1 without resource',
    () => {
      const b = v1Body()
      delete b.paymentRequirements!.resource
      return b
    },
  ],
  [
    'x402 v1 with a payload of version 2',
    () => {
      const b = v1Body()
      b.paymentPayload!.x402Version = 2
      return b
    },
  ],
  [
    'x402 v1 with a negative maxAmountRequired',
    () => {
      const b = v1Body()
      b.paymentRequirements!.maxAmountRequired = '-1'
      return b
    },
  ],
  [
    'x402 v1 with a description that is no string',
    () => {
      const b = v1Body()
      b.paymentRequirements!.description = 7
      return b
    },
  ],
  [
    'x402 v1 without the version at the top',
    () => {
      const { x402Version: _version, ...b } = v1Body()
      return b
    },
  ],
]
const PAYMENT_ID = 'pay_0123456789abcdef'
const paymentIdentifierCases: Array<[string, () => unknown]> = [
  [
    'EIP-3009 with a payment-identifier id',
    () => withExtensions(v2Body(), { 'payment-identifier': { info: { required: false, id: PAYMENT_ID } } }),
  ],
  [
    'EIP-3009 with payment-identifier declared, no id',
    () => withExtensions(v2Body(), { 'payment-identifier': { info: { required: false } } }),
  ],
  [
    'EIP-3009 with a payment-identifier id of 15 characters',
    () => withExtensions(v2Body(), { 'payment-identifier': { info: { id: 'a'.repeat(15) } } }),
  ],
  [
    'EIP-3009 with a payment-identifier id of 129 characters',
    () => withExtensions(v2Body(), { 'payment-identifier': { info: { id: 'a'.repeat(129) } } }),
  ],
  [
    'EIP-3009 with payment-identifier required, no id',
    () => withExtensions(v2Body(), { 'payment-identifier': { info: { required: true } } }),
  ],
  [
    'EIP-3009 with payment-identifier without info',
    () => withExtensions(v2Body(), { 'payment-identifier': { id: PAYMENT_ID } }),
  ],
  ['Permit2 with a payment-identifier id', () => permit2Body({ 'payment-identifier': { info: { id: PAYMENT_ID } } })],
  [
    'Permit2 with a payment-identifier id with a dot',
    () => permit2Body({ 'payment-identifier': { info: { id: `${PAYMENT_ID}.1` } } }),
  ],
  [
    'Permit2 with payment-identifier required not a boolean',
    () => permit2Body({ 'payment-identifier': { info: { required: 'yes', id: PAYMENT_ID } } }),
  ],
]
const permit2Of = (b: ReturnType<typeof permit2Body>) =>
  (b.paymentPayload!.payload as Record<string, Record<string, unknown>>).permit2Authorization!
const sponsored = () => ({
  from: `0x${'12'.repeat(20)}`,
  asset: `0x${'aa'.repeat(20)}`,
  spender: '0x000000000022d473030f116ddee9f6b43ac78ba3',
  amount: '1000000',
  nonce: '7',
  deadline: '1795560501',
  signature: `0x${'22'.repeat(64)}1c`,
  version: '1',
})
type Body = ReturnType<typeof specBody>
const auth = (b: Body) => b.paymentPayload.payload.authorization as Record<string, unknown>

describe('the OpenAPI document and the io-ts codecs accept and refuse the same bodies', () => {
  const schema = makeOpenApiValidator().schema('AnyPaymentRequest')
  const corpus: ReadonlyArray<[string, () => unknown]> = [
    ['the spec sample', specBody],
    ['the x402 v2 sample', v2Body],
    [
      'value in hex',
      () => {
        const b = specBody()
        auth(b).value = '0xf4240'
        return b
      },
    ],
    [
      'negative value',
      () => {
        const b = specBody()
        auth(b).value = '-1'
        return b
      },
    ],
    [
      'value with a leading zero',
      () => {
        const b = specBody()
        auth(b).value = '01'
        return b
      },
    ],
    [
      'value with a point',
      () => {
        const b = specBody()
        auth(b).value = '1.5'
        return b
      },
    ],
    [
      'value as a number',
      () => {
        const b = specBody()
        auth(b).value = 5
        return b
      },
    ],
    [
      'validBefore as a string',
      () => {
        const b = specBody()
        auth(b).validBefore = '1900000000'
        return b
      },
    ],
    [
      'fractional validBefore',
      () => {
        const b = specBody()
        auth(b).validBefore = 1.5
        return b
      },
    ],
    [
      'unsafe validBefore',
      () => {
        const b = specBody()
        auth(b).validBefore = 2 ** 53
        return b
      },
    ],
    [
      'nonce as bytes32',
      () => {
        const b = specBody()
        auth(b).nonce = `0x${'ab'.repeat(32)}`
        return b
      },
    ],
    [
      'nonce as a decimal string',
      () => {
        const b = specBody()
        auth(b).nonce = '255'
        return b
      },
    ],
    [
      'short hex nonce',
      () => {
        const b = specBody()
        auth(b).nonce = '0x12'
        return b
      },
    ],
    [
      'all-upper-case address',
      () => {
        const b = specBody()
        auth(b).to = `0x${'AB'.repeat(20)}`
        return b
      },
    ],
    [
      'short address',
      () => {
        const b = specBody()
        auth(b).to = '0x1234'
        return b
      },
    ],
    [
      '64-byte signature',
      () => {
        const b = specBody()
        b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}`
        return b
      },
    ],
    [
      'signature with v = 5',
      () => {
        const b = specBody()
        b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}05`
        return b
      },
    ],
    [
      'signature with v = 0',
      () => {
        const b = specBody()
        b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}00`
        return b
      },
    ],
    [
      'version "two"',
      () => {
        const b = specBody()
        ;(b.paymentPayload as Record<string, unknown>).x402Version = 'two'
        return b
      },
    ],
    [
      'version 2 as a number',
      () => {
        const b = specBody()
        ;(b.paymentPayload as Record<string, unknown>).x402Version = 2
        return b
      },
    ],
    [
      'empty scheme',
      () => {
        const b = specBody()
        b.paymentPayload.scheme = ''
        return b
      },
    ],
    [
      'missing network',
      () => {
        const b = specBody()
        delete (b.paymentPayload as Record<string, unknown>).network
        return b
      },
    ],
    [
      'missing requirements',
      () => {
        const b = specBody()
        delete (b as Record<string, unknown>).paymentRequirements
        return b
      },
    ],
    [
      'zero maxTimeoutSeconds',
      () => {
        const b = specBody()
        b.paymentRequirements.maxTimeoutSeconds = 0
        return b
      },
    ],
    [
      'payTo not an address',
      () => {
        const b = specBody()
        b.paymentRequirements.payTo = 'alice'
        return b
      },
    ],
    [
      'v2 without requirements in accepted',
      () => {
        const b = v2Body() as unknown as Record<string, Record<string, unknown>>
        b.paymentPayload!.accepted = {}
        return b
      },
    ],
    ['not an object', () => 42],
    ['a Permit2 exact payload', () => permit2Body()],
    [
      'an upto payload (witness.facilitator)',
      () => {
        const b = permit2Body()
        ;(permit2Of(b).witness as Record<string, unknown>).facilitator = `0x${'bb'.repeat(20)}`
        return b
      },
    ],
    ['Permit2 with eip2612GasSponsoring', () => permit2Body({ eip2612GasSponsoring: { info: sponsored() } })],
    ['Permit2 with another extension only', () => permit2Body({ bazaar: { info: 1 } })],
    [
      'Permit2 with eip2612GasSponsoring declared, no permit',
      () => permit2Body({ eip2612GasSponsoring: { info: {} } }),
    ],
    [
      'Permit2 with a whole eip2612GasSponsoring permit, its signature malformed',
      () => permit2Body({ eip2612GasSponsoring: { info: { ...sponsored(), signature: '0xzz' } } }),
    ],
    [
      'Permit2 with eip2612GasSponsoring lacking its signature',
      () => {
        const { signature: _dropped, ...info } = sponsored()
        return permit2Body({ eip2612GasSponsoring: { info } })
      },
    ],
    ['Permit2 with extensions not an object', () => permit2Body('none')],
    ...paymentIdentifierCases,
    [
      'Permit2 without witness.to',
      () => {
        const b = permit2Body()
        delete (permit2Of(b).witness as Record<string, unknown>).to
        return b
      },
    ],
    [
      'Permit2 with a numeric amount',
      () => {
        const b = permit2Body()
        permit2Of(b).permitted = { token: `0x${'aa'.repeat(20)}`, amount: 1000000 }
        return b
      },
    ],
    [
      'an EIP-3009 authorization beside a malformed permit2Authorization',
      () => {
        const b = v2Body() as unknown as Record<string, Record<string, Record<string, unknown>>>
        b.paymentPayload!.payload!.permit2Authorization = { from: 'alice' }
        return b
      },
    ],
    ...v1Cases,
  ]
  for (const [label, body] of corpus) {
    it(label, () => {
      const value = body()
      expect(schema(value), 'OpenAPI schema').to.equal(decodes(value))
    })
  }
})

describe('real answers of the running service match the OpenAPI document', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  const openapi = makeOpenApiValidator()
  before(async () => {
    f = await startTestFacilitator({
      API_KEYS: 'main,spare',
      RATE_LIMIT: '30',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      RPC_TIMEOUT_MS: '1000',
    })
  })
  after(() => f?.stop())

  const key = { authorization: 'Bearer main' }
  const root = () => f.base.replace(/\/api\/facilitator$/, '')
  const call = async (
    method: string,
    path: string,
    template: string,
    init: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ) => {
    const response = await fetch(`${root()}${path}`, {
      method,
      headers: {
        ...(init.body !== undefined || init.raw !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.raw !== undefined
        ? { body: init.raw }
        : init.body !== undefined
          ? { body: JSON.stringify(init.body) }
          : {}),
    })
    const text = await response.text()
    const body = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text
    openapi.check(template, method.toLowerCase(), response.status, body)
    return { status: response.status, body }
  }
  const verify = (init: Parameters<typeof call>[3]) =>
    call('POST', '/api/facilitator/verify', '/api/facilitator/verify', { headers: key, ...init })
  const settle = (init: Parameters<typeof call>[3]) =>
    call('POST', '/api/facilitator/settle', '/api/facilitator/settle', { headers: key, ...init })
  const asV2 = (b: PaymentBody) => ({
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: { ...b.paymentRequirements, network: f.network },
      payload: b.paymentPayload.payload,
    },
    paymentRequirements: { ...b.paymentRequirements, network: f.network },
  })

  it('verify: valid, refused, v2, and every error answer', async () => {
    const body = await f.payment()
    expect((await verify({ body })).status).to.equal(200)
    const wrong = await f.payment()
    wrong.paymentRequirements.payTo = `0x${'56'.repeat(20)}`
    expect((await verify({ body: wrong })).body).to.include({ valid: false })
    expect((await verify({ body: asV2(await f.payment()) })).body).to.include({ isValid: true })
    expect((await verify({ raw: '{' })).status).to.equal(400)
    expect((await verify({ body: { x402Version: 2, paymentPayload: { accepted: {} } } })).status).to.equal(400)
    expect((await verify({ raw: JSON.stringify({ pad: 'x'.repeat(70_000) }) })).status).to.equal(413)
    expect(
      (
        await call('POST', '/api/facilitator/verify', '/api/facilitator/verify', {
          headers: { ...key, 'content-type': 'text/plain' },
          raw: 'x',
        })
      ).status,
    ).to.equal(415)
    expect((await call('POST', '/api/facilitator/verify', '/api/facilitator/verify', { body })).status).to.equal(401)
    expect((await call('GET', '/api/facilitator/verify', '/api/facilitator/verify')).status).to.equal(405)
  })

  it('settle: settled, replay refused, v2, idempotent replay and 409, pending 202, 503', async () => {
    const body = await f.payment()
    const settled = await settle({ body, headers: { ...key, 'idempotency-key': 'o-1' } })
    expect(settled.body).to.include({ success: true })
    expect((await settle({ body, headers: { ...key, 'idempotency-key': 'o-1' } })).body).to.include({ replayed: true })
    expect((await settle({ body: await f.payment(), headers: { ...key, 'idempotency-key': 'o-1' } })).status).to.equal(
      409,
    )
    expect((await settle({ body })).body).to.include({ errorCode: 'authorization_already_used' })
    expect((await settle({ body: asV2(await f.payment({ payer: 1 })) })).body).to.include({ success: true })

    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    try {
      const slow = await f.payment({ payer: 2 })
      slow.paymentRequirements.maxTimeoutSeconds = 1
      expect((await settle({ body: slow })).status).to.equal(202)
    } finally {
      await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    }
    await f.chain.pause()
    try {
      expect((await settle({ body: await f.payment({ payer: 2 }) })).status).to.equal(503)
    } finally {
      f.chain.resume()
    }
    const hash = (settled.body as { txHash: string }).txHash
    expect(
      (
        await call('GET', `/api/facilitator/settlements/${hash}`, '/api/facilitator/settlements/{txHash}', {
          headers: key,
        })
      ).status,
    ).to.equal(200)
    const { from, nonce } = body.paymentPayload.payload.authorization
    expect(
      (
        await call('GET', `/api/facilitator/settlements?payer=${from}&nonce=${nonce}`, '/api/facilitator/settlements', {
          headers: key,
        })
      ).status,
    ).to.equal(200)
    expect(
      (
        await call(
          'GET',
          `/api/facilitator/settlements/0x${'00'.repeat(32)}`,
          '/api/facilitator/settlements/{txHash}',
          { headers: key },
        )
      ).status,
    ).to.equal(404)
    expect(
      (
        await call('GET', '/api/facilitator/settlements/0x12', '/api/facilitator/settlements/{txHash}', {
          headers: key,
        })
      ).status,
    ).to.equal(400)
    expect(
      (await call('GET', `/api/facilitator/settlements/${hash}`, '/api/facilitator/settlements/{txHash}')).status,
    ).to.equal(401)
  })

  it('rate limited answers, capabilities, probes and the document itself', async () => {
    const spare = { authorization: 'Bearer spare' }
    const body = await f.payment()
    let last = 0
    for (let i = 0; i < 31 && last !== 429; i++)
      last = (await call('POST', '/api/facilitator/verify', '/api/facilitator/verify', { headers: spare, body })).status
    expect(last).to.equal(429)
    expect((await call('GET', '/api/facilitator/supported', '/api/facilitator/supported')).status).to.equal(200)
    expect((await call('GET', '/healthz', '/healthz')).status).to.equal(200)
    expect((await call('GET', '/readyz', '/readyz')).status).to.equal(200)
    expect((await call('GET', '/metrics', '/metrics')).status).to.equal(200)
    // No OPERATOR_TOKEN here: the operator's route is not served, as its 404 in the document says.
    const operatorRoute = '/api/facilitator/operator/deliveries'
    expect((await call('GET', operatorRoute, operatorRoute, { headers: key })).body).to.include({
      errorCode: 'not_found',
    })
    const served = await call('GET', '/openapi.json', '/openapi.json')
    expect(served.body).to.include({ openapi: '3.1.0' })
    expect(() => makeOpenApiValidator(served.body).check('/healthz', 'get', 200, { status: 'ok' })).to.not.throw()
  })
})
