import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  CANONICAL_PERMIT2_CONTRACTS,
  explainAnyRefusal,
  paymentOf,
  requestRules,
  type FacilitatorPolicy,
  type PaymentPhase,
  type Permit2PaymentRequest,
  type UnservedTransfer,
} from '@x402-facilitator/domain'
import { policy as eip3009Policy, validRequest } from './fakes.js'
import { FACILITATOR, GOOD_SIGNATURE, NOW_S, PAYEE, PAYER, TOKEN } from './sample-values.js'

const permit2Policy: FacilitatorPolicy = {
  ...eip3009Policy,
  asset: { ...eip3009Policy.asset, transferMethods: ['eip3009', 'permit2'] },
  permit2: CANONICAL_PERMIT2_CONTRACTS,
  uptoFacilitators: [FACILITATOR],
  minAmount: 100n,
}

const permit2Request = (
  o: { payload?: string; requirements?: string; version?: number; amount?: bigint; permitted?: bigint } = {},
): Permit2PaymentRequest => {
  const eip3009 = validRequest()
  const scheme = o.payload ?? 'exact'
  const upto = scheme === 'upto' || o.requirements === 'upto'
  return {
    payload: {
      x402Version: o.version ?? 2,
      scheme,
      network: eip3009Policy.network,
      signature: GOOD_SIGNATURE,
      permit2Authorization: {
        from: PAYER,
        permitted: { token: TOKEN, amount: o.permitted ?? 1_000_000n },
        spender: upto ? CANONICAL_PERMIT2_CONTRACTS.uptoProxy : CANONICAL_PERMIT2_CONTRACTS.exactProxy,
        nonce: `0x${'cd'.repeat(32)}`,
        deadline: NOW_S + 600n,
        witness: upto ? { to: PAYEE, validAfter: 0n, facilitator: FACILITATOR } : { to: PAYEE, validAfter: 0n },
      },
    },
    requirements: { ...eip3009.requirements, scheme: o.requirements ?? scheme, amount: o.amount ?? 1_000_000n },
  }
}

const read = (request: Permit2PaymentRequest, phase: PaymentPhase = 'verify', policy = permit2Policy) =>
  paymentOf(request, { policy, now: NOW_S, phase })
const refusal = (request: Permit2PaymentRequest, phase: PaymentPhase = 'verify', policy = permit2Policy) => {
  const read_ = read(request, phase, policy)
  if (E.isRight(read_)) return expect.fail('the Permit2 request was read as a payment')
  return read_.left
}
const codeOf = (u: UnservedTransfer) => explainAnyRefusal(u.failure, permit2Policy).reasonCode

describe("rule 2c: what a request pays (paymentOf), and rule 3': how its token may be paid", () => {
  it('an EIP-3009 request goes on as it is, the same object', () => {
    const request = validRequest()
    const read_ = paymentOf(request, { policy: eip3009Policy, now: NOW_S, phase: 'verify' })
    expect(E.isRight(read_) && read_.right).to.equal(request)
  })

  it('a Permit2 exact payment is read onto the authorization fields, its terms kept', () => {
    const request = permit2Request()
    const read_ = read(request)
    if (E.isLeft(read_)) return expect.fail(JSON.stringify(read_.left))
    const p = request.payload.permit2Authorization
    expect(read_.right.payload.authorization).to.deep.equal({
      from: PAYER,
      to: PAYEE,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: p.deadline,
      nonce: p.nonce,
      permit2: { scheme: 'exact', permitted: 1_000_000n, spender: CANONICAL_PERMIT2_CONTRACTS.exactProxy },
    })
  })

  it('upto: verify judges the maximum, settle moves requirements.amount, never more than permitted', () => {
    const atVerify = read(permit2Request({ payload: 'upto' }))
    expect(E.isRight(atVerify) && atVerify.right.payload.authorization.value).to.equal(1_000_000n)
    const atSettle = read(permit2Request({ payload: 'upto', amount: 250n }), 'settle')
    expect(E.isRight(atSettle) && atSettle.right.payload.authorization.value).to.equal(250n)
    expect(E.isRight(atSettle) && atSettle.right.payload.authorization.permit2?.facilitator).to.equal(FACILITATOR)
    const zero = read(permit2Request({ payload: 'upto', amount: 0n }), 'settle')
    expect(E.isRight(zero) && zero.right.payload.authorization.value).to.equal(0n)
    const over = refusal(permit2Request({ payload: 'upto', amount: 1_000_001n }), 'settle')
    expect(over.failure).to.deep.equal({
      _tag: 'UptoAmountExceedsPermitted',
      amount: 1_000_001n,
      permitted: 1_000_000n,
    })
    expect(codeOf(over)).to.equal('invalid_upto_evm_payload_settlement_exceeds_amount')
    // At verify the amount must equal the maximum.
    expect(codeOf(refusal(permit2Request({ payload: 'upto', amount: 250n })))).to.equal('permit2_amount_mismatch')
  })

  it('MIN_AMOUNT applies to the permitted maximum, and to what an upto settle charges unless it is 0 (waived)', () => {
    expect(codeOf(refusal(permit2Request({ permitted: 99n, amount: 99n })))).to.equal('invalid_payment_requirements')
    const small = read(permit2Request({ payload: 'upto', amount: 1n }), 'settle')
    expect(E.isLeft(small) && small.left.failure).to.deep.equal({
      _tag: 'AmountBelowMinimum',
      amount: 1n,
      minimum: 100n,
    })
    for (const amount of [0n, 100n])
      expect(E.isRight(read(permit2Request({ payload: 'upto', amount }), 'settle'))).to.equal(true)
  })

  it("rule 3': a token not paid by Permit2 refuses a Permit2 payment, naming how it is paid", () => {
    const refused = refusal(permit2Request(), 'verify', eip3009Policy)
    expect(refused).to.deep.equal({
      payer: PAYER,
      failure: { _tag: 'UnsupportedTransferMethod', method: 'permit2', allowed: ['eip3009'] },
    })
    expect(codeOf(refused)).to.equal('unsupported_asset_transfer_method')
    expect(explainAnyRefusal(refused.failure, eip3009Policy).message).to.match(/USDC is paid here by "eip3009" only/)
    // And an EIP-3009 payment of a token paid by Permit2 only (rules 1–6, with 3').
    const permit2Only = { ...permit2Policy, asset: { ...permit2Policy.asset, transferMethods: ['permit2' as const] } }
    const eip3009 = requestRules({ request: validRequest(), policy: permit2Only, now: NOW_S })
    expect(E.isLeft(eip3009) && eip3009.left).to.deep.equal({
      _tag: 'UnsupportedTransferMethod',
      method: 'eip3009',
      allowed: ['permit2'],
    })
  })

  it('upto with an EIP-3009 payload is an unsupported scheme; exact in one place and upto in the other too', () => {
    const eip3009Upto = validRequest()
    const upto = { ...eip3009Upto, payload: { ...eip3009Upto.payload, scheme: 'upto' } }
    const ruled = requestRules({ request: upto, policy: permit2Policy, now: NOW_S })
    expect(E.isLeft(ruled) && ruled.left).to.deep.equal({ _tag: 'UnsupportedScheme', scheme: 'upto' })
    const mixed = refusal(permit2Request({ payload: 'exact', requirements: 'upto' }))
    expect(mixed.failure).to.deep.equal({ _tag: 'UnsupportedScheme', scheme: 'upto' })
  })

  it('upto on a network without the upto proxy (UPTO_PERMIT2_PROXY_ADDRESS=none) is refused; exact is paid', () => {
    const { uptoProxy: _upto, ...exactAlone } = CANONICAL_PERMIT2_CONTRACTS
    const policy = { ...permit2Policy, permit2: exactAlone }
    const failure = refusal(permit2Request({ payload: 'upto' }), 'verify', policy).failure
    expect(failure).to.deep.equal({ _tag: 'UnsupportedScheme', scheme: 'upto', noUptoProxy: true })
    expect(explainAnyRefusal(failure, policy)).to.deep.equal({
      reasonCode: 'unsupported_scheme',
      message:
        'unsupported scheme "upto" on this network: its upto Permit2 proxy is not deployed; ' +
        'pay with "exact" (through Permit2 or EIP-3009)',
    })
    expect(E.isRight(read(permit2Request(), 'settle', policy))).to.equal(true)
  })

  it('rule 1 and an unknown scheme come first', () => {
    expect(refusal(permit2Request({ version: 1, payload: 'upto' })).failure).to.deep.equal({
      _tag: 'UnsupportedVersion',
      version: 1,
    })
    expect(refusal(permit2Request({ payload: 'upto', requirements: 'stream' })).failure).to.deep.equal({
      _tag: 'UnsupportedScheme',
      scheme: 'stream',
    })
  })

  it('an upto witness naming a key this replica does not hold is refused before anything is read', () => {
    const others = { ...permit2Policy, uptoFacilitators: [PAYEE] }
    expect(codeOf(refusal(permit2Request({ payload: 'upto' }), 'verify', others))).to.equal('upto_facilitator_mismatch')
  })
})
