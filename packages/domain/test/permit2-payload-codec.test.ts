import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { makePermit2Codecs, toMalformedRequest, type MalformedRequest } from '@x402-facilitator/domain'
import { EXACT_PERMIT2_PAYLOAD, GOLDEN_CHECKSUMS, SPONSORED_EXTENSIONS, UPTO_PAYLOAD } from './permit2-golden.js'

const { Permit2Payload, Extensions } = makePermit2Codecs((lower) => GOLDEN_CHECKSUMS[lower] ?? lower)

const PAYER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const PAYEE = '0x00000000000000000000000000000000000be7ee'

const decoded = <A>(codec: t.Decoder<unknown, A>, input: unknown): A => {
  const result = codec.decode(input)
  if (E.isLeft(result)) expect.fail(toMalformedRequest(result.left).message)
  return result.right
}
const refused = (codec: t.Decoder<unknown, unknown>, input: unknown): MalformedRequest => {
  const result = codec.decode(input)
  if (E.isRight(result)) return expect.fail('decoded')
  return toMalformedRequest(result.left)
}
const copy = <A>(a: A): A => structuredClone(a)

describe('x402 v2 Permit2 payloads made by @x402/evm 2.27 decode to their canonical form', () => {
  it('exact (assetTransferMethod permit2): addresses lower case, the decimal nonce as bytes32, numbers bigint', () => {
    expect(decoded(Permit2Payload, EXACT_PERMIT2_PAYLOAD)).to.deep.equal({
      signature: EXACT_PERMIT2_PAYLOAD.signature,
      permit2Authorization: {
        from: PAYER,
        permitted: { token: TOKEN, amount: 1_000_000n },
        spender: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
        nonce: `0x${BigInt(EXACT_PERMIT2_PAYLOAD.permit2Authorization.nonce).toString(16).padStart(64, '0')}`,
        deadline: 1_795_560_501n,
        witness: { to: PAYEE, validAfter: 0n },
      },
    })
  })

  it('upto: the witness names the facilitator', () => {
    const { permit2Authorization } = decoded(Permit2Payload, UPTO_PAYLOAD)
    expect(permit2Authorization.spender).to.equal('0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002')
    expect(permit2Authorization.witness).to.deep.equal({ to: PAYEE, facilitator: PAYER, validAfter: 0n })
  })

  it('the eip2612GasSponsoring extension: a permit of the token to Permit2', () => {
    expect(decoded(Extensions, SPONSORED_EXTENSIONS).eip2612GasSponsoring?.info).to.deep.equal({
      from: PAYER,
      asset: TOKEN,
      spender: '0x000000000022d473030f116ddee9f6b43ac78ba3',
      amount: 1_000_000n,
      nonce: 7n,
      deadline: 1_795_560_501n,
      signature: SPONSORED_EXTENSIONS.eip2612GasSponsoring.info.signature,
      version: '1',
    })
  })

  it('other extensions pass unread', () => {
    expect(decoded(Extensions, { bazaar: { info: 1 } })).to.deep.equal({ bazaar: { info: 1 } })
  })

  it('the extension without a whole permit (declared, or a field missing): nothing sponsored, as 2.27 reads it', () => {
    const { signature: _unsigned, ...unsigned } = copy(SPONSORED_EXTENSIONS).eip2612GasSponsoring.info
    for (const info of [{}, { description: 'gas sponsoring', version: '1' }, unsigned]) {
      const echoed = { eip2612GasSponsoring: { info, schema: {} } }
      expect(decoded(Extensions, echoed).eip2612GasSponsoring?.info).to.equal(undefined)
    }
  })
})

describe('malformed Permit2 payloads are refused naming the field', () => {
  it('a witness.to whose mixed case fails EIP-55', () => {
    const p = copy(EXACT_PERMIT2_PAYLOAD)
    p.permit2Authorization.witness.to = '0x00000000000000000000000000000000000Be7eE'
    expect(refused(Permit2Payload, p).field).to.equal('permit2Authorization.witness.to')
  })

  it('a JSON number as the permitted amount', () => {
    const p = copy(EXACT_PERMIT2_PAYLOAD) as unknown as { permit2Authorization: { permitted: { amount: unknown } } }
    p.permit2Authorization.permitted.amount = 1_000_000
    expect(refused(Permit2Payload, p).field).to.equal('permit2Authorization.permitted.amount')
  })

  it('a nonce of 2^256', () => {
    const p = copy(EXACT_PERMIT2_PAYLOAD)
    p.permit2Authorization.nonce = (1n << 256n).toString()
    expect(refused(Permit2Payload, p).field).to.equal('permit2Authorization.nonce')
  })

  it('no deadline', () => {
    const p = copy(EXACT_PERMIT2_PAYLOAD) as unknown as { permit2Authorization: Record<string, unknown> }
    delete p.permit2Authorization.deadline
    expect(refused(Permit2Payload, p).message).to.equal('permit2Authorization.deadline: is required')
  })

  it('a whole eip2612GasSponsoring permit with a malformed field', () => {
    const e = copy(SPONSORED_EXTENSIONS) as unknown as { eip2612GasSponsoring: { info: Record<string, unknown> } }
    e.eip2612GasSponsoring.info.signature = '0xzz'
    expect(refused(Extensions, e).field).to.equal('eip2612GasSponsoring.info.signature')
  })
})
