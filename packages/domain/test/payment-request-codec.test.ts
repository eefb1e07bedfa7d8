import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { makePaymentRequestDecoder, type MalformedRequest, type PaymentRequest } from '@x402-facilitator/domain'

// EIP-55's own test vectors: the checksum is keccak, which the domain takes from an adapter.
const EIP55: Record<string, string> = {
  '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed': '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359': '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
}
const checksum = (lower: string) => EIP55[lower] ?? lower
const decode = makePaymentRequestDecoder(checksum)

const body = () => ({
  paymentPayload: {
    x402Version: '2.0',
    scheme: 'exact',
    network: 'eip155:31337',
    payload: {
      signature: `0x${'11'.repeat(64)}1b`,
      authorization: {
        from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        to: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
        value: '1000000',
        validAfter: 0,
        validBefore: 1_900_000_000,
        nonce: 7,
      },
    },
  },
  paymentRequirements: {
    x402Version: '2.0',
    scheme: 'exact',
    network: 'eip155:31337',
    amount: '1000000',
    asset: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
    payTo: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
    maxTimeoutSeconds: 60,
  },
})

type Body = ReturnType<typeof body>
const accepted = (edit: (b: Body) => void): PaymentRequest => {
  const b = body()
  edit(b)
  const result = decode(b)
  if (E.isLeft(result)) throw new Error(`expected acceptance, got ${result.left.message}`)
  return result.right
}
const rejected = (edit: (b: Body) => void): MalformedRequest => {
  const b = body()
  edit(b)
  const result = decode(b)
  if (E.isRight(result)) throw new Error('expected a decode failure')
  return result.left
}
const auth = (b: Body) => b.paymentPayload.payload.authorization as Record<string, unknown>
const req = (b: Body) => b.paymentRequirements as Record<string, unknown>

describe('payment request codec (docs/ARCHITECTURE.md §2)', () => {
  describe('accepted forms', () => {
    it('decodes the spec sample into canonical values', () => {
      const r = accepted(() => {})
      expect(r.payload.x402Version).to.equal(2)
      expect(r.payload.authorization.from).to.equal('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')
      expect(r.payload.authorization.value).to.equal(1_000_000n)
      expect(r.payload.authorization.nonce).to.equal(`0x${'0'.repeat(63)}7`)
      expect(r.requirements.amount).to.equal(1_000_000n)
      expect(r.requirements.maxTimeoutSeconds).to.equal(60)
    })
    for (const [label, version, major] of [
      ['"2.0"', '2.0', 2],
      ['"2"', '2', 2],
      ['integer 2', 2, 2],
      ['"3.1" (well-formed, left to rule 1)', '3.1', 3],
    ] as const) {
      it(`x402Version ${label}`, () => {
        expect(accepted((b) => (b.paymentPayload.x402Version = version as never)).payload.x402Version).to.equal(major)
      })
    }
    it('requirements without x402Version take the payload version', () => {
      expect(accepted((b) => delete req(b).x402Version).requirements.x402Version).to.equal(2)
    })
    it('all-lower-case and all-upper-case addresses carry no checksum', () => {
      const r = accepted((b) => (auth(b).to = '0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359'))
      expect(r.payload.authorization.to).to.equal('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')
    })
    it('value as 0x hex', () => {
      expect(accepted((b) => (auth(b).value = '0xf4240')).payload.authorization.value).to.equal(1_000_000n)
    })
    it('value of 2^256 − 1 exactly', () => {
      const max = ((1n << 256n) - 1n).toString()
      expect(accepted((b) => (auth(b).value = max)).payload.authorization.value).to.equal((1n << 256n) - 1n)
    })
    it('timestamps as decimal strings and as hex', () => {
      const r = accepted((b) => {
        auth(b).validAfter = '100'
        auth(b).validBefore = '0x71c71c71'
      })
      expect(r.payload.authorization.validAfter).to.equal(100n)
      expect(r.payload.authorization.validBefore).to.equal(0x71c71c71n)
    })
    it('nonce as a decimal string', () => {
      expect(accepted((b) => (auth(b).nonce = '255')).payload.authorization.nonce).to.equal(`0x${'0'.repeat(62)}ff`)
    })
    it('nonce as 0x bytes32 (x402 style), lower-cased', () => {
      const nonce = `0x${'AB'.repeat(32)}`
      expect(accepted((b) => (auth(b).nonce = nonce)).payload.authorization.nonce).to.equal(nonce.toLowerCase())
    })
    it('signature with v = 0 / 1 / 28', () => {
      for (const v of ['00', '01', '1c'])
        accepted((b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}${v}`))
    })
    it("a smart wallet's longer signature, or a 65-byte one with any v, is well-formed (rule 7 judges it)", () => {
      accepted((b) => (b.paymentPayload.payload.signature = `0x${'ab'.repeat(200)}`))
      accepted((b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}05`))
      accepted((b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(8192)}`))
    })

    it('a high-s signature is well-formed (rule 7 refuses it)', () => {
      accepted((b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(32)}${'ff'.repeat(32)}1b`))
    })
    it('extra fields are ignored', () => {
      accepted((b) => ((b.paymentPayload as Record<string, unknown>).resource = 'https://example.com'))
    })
  })

  describe('rejected forms name the field and what was wrong', () => {
    const cases: ReadonlyArray<[string, (b: Body) => void, string, string]> = [
      [
        'negative value',
        (b) => (auth(b).value = '-1'),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value with a leading zero',
        (b) => (auth(b).value = '0100'),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value with a point',
        (b) => (auth(b).value = '1.5'),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value with an exponent',
        (b) => (auth(b).value = '1e6'),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value with a plus sign',
        (b) => (auth(b).value = '+5'),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'empty value',
        (b) => (auth(b).value = ''),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value of 2^256',
        (b) => (auth(b).value = (1n << 256n).toString()),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'value as a JSON number',
        (b) => (auth(b).value = 1000000),
        'paymentPayload.payload.authorization.value: expected a non-negative decimal integer string',
        'invalid_payload',
      ],
      [
        'fractional validBefore',
        (b) => (auth(b).validBefore = 1.5),
        'paymentPayload.payload.authorization.validBefore: expected a non-negative integer (JSON safe integer, ' +
          'decimal string or 0x hex)',
        'invalid_payload',
      ],
      [
        'unsafe integer validBefore',
        (b) => (auth(b).validBefore = 2 ** 53),
        'paymentPayload.payload.authorization.validBefore: expected a non-negative integer (JSON safe integer, ' +
          'decimal string or 0x hex)',
        'invalid_payload',
      ],
      [
        'negative validAfter',
        (b) => (auth(b).validAfter = -1),
        'paymentPayload.payload.authorization.validAfter: expected a non-negative integer (JSON safe integer, ' +
          'decimal string or 0x hex)',
        'invalid_payload',
      ],
      [
        'short hex nonce',
        (b) => (auth(b).nonce = '0x1234'),
        'paymentPayload.payload.authorization.nonce: expected a nonce (non-negative integer, decimal string or ' +
          '0x-prefixed 32-byte hex)',
        'invalid_payload',
      ],
      [
        'fractional nonce',
        (b) => (auth(b).nonce = 1.25),
        'paymentPayload.payload.authorization.nonce: expected a nonce (non-negative integer, decimal string or ' +
          '0x-prefixed 32-byte hex)',
        'invalid_payload',
      ],
      [
        'bad EIP-55 checksum',
        (b) => (auth(b).from = '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'),
        'paymentPayload.payload.authorization.from: mixed-case address fails its EIP-55 checksum',
        'invalid_payload',
      ],
      [
        'short address',
        (b) => (auth(b).to = '0x1234'),
        'paymentPayload.payload.authorization.to: expected a 0x-prefixed 20-byte hex address',
        'invalid_payload',
      ],
      [
        'odd-length signature',
        (b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(64)}1`),
        'paymentPayload.payload.signature: expected a 0x-prefixed signature of 1 to 8192 bytes',
        'invalid_payload',
      ],
      [
        'signature over 8 KiB',
        (b) => (b.paymentPayload.payload.signature = `0x${'11'.repeat(8193)}`),
        'paymentPayload.payload.signature: expected a 0x-prefixed signature of 1 to 8192 bytes',
        'invalid_payload',
      ],
      [
        'version "two"',
        (b) => (b.paymentPayload.x402Version = 'two'),
        'paymentPayload.x402Version: expected a protocol version ("2.0", "2" or an integer)',
        'invalid_payload',
      ],
      [
        'empty scheme',
        (b) => (b.paymentPayload.scheme = ''),
        'paymentPayload.scheme: expected a non-empty string',
        'invalid_payload',
      ],
      [
        'missing network',
        (b) => delete (b.paymentPayload as Record<string, unknown>).network,
        'paymentPayload.network: is required',
        'invalid_payload',
      ],
      [
        'missing authorization',
        (b) => delete (b.paymentPayload.payload as Record<string, unknown>).authorization,
        'paymentPayload.payload.authorization: is required',
        'invalid_payload',
      ],
      [
        'amount with a point',
        (b) => (req(b).amount = '0.5'),
        'paymentRequirements.amount: expected a non-negative decimal integer string',
        'invalid_payment_requirements',
      ],
      [
        'zero maxTimeoutSeconds',
        (b) => (req(b).maxTimeoutSeconds = 0),
        'paymentRequirements.maxTimeoutSeconds: expected a positive safe integer',
        'invalid_payment_requirements',
      ],
      [
        'bad payTo',
        (b) => (req(b).payTo = 'alice'),
        'paymentRequirements.payTo: expected a 0x-prefixed 20-byte hex address',
        'invalid_payment_requirements',
      ],
      [
        'missing requirements',
        (b) => delete (b as Record<string, unknown>).paymentRequirements,
        'paymentRequirements: is required',
        'invalid_payment_requirements',
      ],
    ]
    for (const [label, edit, message, reasonCode] of cases) {
      it(label, () => {
        const failure = rejected(edit)
        expect(failure.message).to.equal(message)
        expect(failure.reasonCode).to.equal(reasonCode)
      })
    }
    it('a body that is not an object', () => {
      for (const b of [null, 42, 'text', []]) {
        const result = decode(b)
        expect(E.isLeft(result) && result.left.message).to.equal('body: expected a JSON object')
      }
    })
  })
})
