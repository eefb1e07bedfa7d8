import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  explainRefusal,
  transferIsServed,
  type Permit2PaymentRequest,
  type UnservedTransfer,
} from '@x402-facilitator/domain'
import { policy, validRequest } from './fakes.js'
import { FACILITATOR, GOOD_SIGNATURE, NOW_S, PAYEE, PAYER, TOKEN } from './sample-values.js'

const permit2Request = (schemes: { payload?: string; requirements?: string; version?: number } = {}) => {
  const eip3009 = validRequest()
  const request: Permit2PaymentRequest = {
    payload: {
      x402Version: schemes.version ?? 2,
      scheme: schemes.payload ?? 'exact',
      network: policy.network,
      signature: GOOD_SIGNATURE,
      permit2Authorization: {
        from: PAYER,
        permitted: { token: TOKEN, amount: 1_000_000n },
        spender: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
        nonce: `0x${'cd'.repeat(32)}`,
        deadline: NOW_S + 600n,
        witness: { to: PAYEE, validAfter: 0n },
      },
    },
    requirements: { ...eip3009.requirements, scheme: schemes.requirements ?? schemes.payload ?? 'exact' },
  }
  return request
}

const refusal = (request: Permit2PaymentRequest): UnservedTransfer => {
  const served = transferIsServed(request)
  if (E.isRight(served)) return expect.fail('a Permit2 request was served')
  return served.left
}
const codeOf = (u: UnservedTransfer) => explainRefusal(u.failure, policy).reasonCode

describe('rule 2c: only EIP-3009 transfers go on to the use cases', () => {
  it('an EIP-3009 request goes on, the same object', () => {
    const request = validRequest()
    const served = transferIsServed(request)
    expect(E.isRight(served) && served.right).to.equal(request)
  })

  it('Permit2 exact → unsupported_asset_transfer_method, naming the payer', () => {
    const refused = refusal(permit2Request())
    expect(refused).to.deep.equal({ payer: PAYER, failure: { _tag: 'UnsupportedTransferMethod', method: 'permit2' } })
    expect(codeOf(refused)).to.equal('unsupported_asset_transfer_method')
    expect(explainRefusal(refused.failure, policy).message).to.match(/"permit2".*not settled yet/)
  })

  it('upto, in the payload or in the requirements only → unsupported_scheme naming upto', () => {
    for (const request of [permit2Request({ payload: 'upto' }), permit2Request({ requirements: 'upto' })]) {
      const refused = refusal(request)
      expect(refused.failure).to.deep.equal({ _tag: 'UnsupportedScheme', scheme: 'upto' })
      expect(codeOf(refused)).to.equal('unsupported_scheme')
    }
  })

  it('rule 1 and an unknown scheme come first, as for an EIP-3009 request', () => {
    expect(refusal(permit2Request({ version: 1, payload: 'upto' })).failure).to.deep.equal({
      _tag: 'UnsupportedVersion',
      version: 1,
    })
    expect(refusal(permit2Request({ payload: 'upto', requirements: 'stream' })).failure).to.deep.equal({
      _tag: 'UnsupportedScheme',
      scheme: 'stream',
    })
  })

  it('the upto witness facilitator does not change the answer', () => {
    const request = permit2Request({ payload: 'upto' })
    const withFacilitator: Permit2PaymentRequest = {
      ...request,
      payload: {
        ...request.payload,
        permit2Authorization: {
          ...request.payload.permit2Authorization,
          witness: { to: PAYEE, validAfter: 0n, facilitator: FACILITATOR },
        },
      },
    }
    expect(codeOf(refusal(withFacilitator))).to.equal('unsupported_scheme')
  })
})
