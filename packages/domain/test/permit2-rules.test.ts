import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  CANONICAL_PERMIT2_CONTRACTS,
  explainAnyRefusal,
  makePermit2Codecs,
  permit2Rules,
  type EvmAddress as Address,
  type Permit2PaymentRequest,
  type Permit2RuleContext,
} from '@x402-facilitator/domain'
import { policy } from './fakes.js'
import { EXACT_PERMIT2_PAYLOAD, GOLDEN_CHECKSUMS, SPONSORED_EXTENSIONS, UPTO_PAYLOAD } from './permit2-golden.js'

const { Permit2Payload, Extensions } = makePermit2Codecs((lower) => GOLDEN_CHECKSUMS[lower] ?? lower)
const decode = <A>(result: E.Either<unknown, A>): A => (E.isRight(result) ? result.right : expect.fail('decode'))

const OTHER: Address = `0x${'34'.repeat(20)}`
const PAYER: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const DEADLINE = 1_795_560_501n
const MARGIN = policy.validityMarginSeconds

/** A request around a golden payload (made by @x402/evm 2.27), its requirements those it was made for. */
const request = (scheme: 'exact' | 'upto', sponsored = false): Permit2PaymentRequest => {
  const golden = decode(Permit2Payload.decode(scheme === 'upto' ? UPTO_PAYLOAD : EXACT_PERMIT2_PAYLOAD))
  const sponsoredPermit = sponsored ? decode(Extensions.decode(SPONSORED_EXTENSIONS)).eip2612GasSponsoring?.info : {}
  const { permit2Authorization: auth } = golden
  return {
    payload: { x402Version: 2, scheme, network: policy.network, ...golden, ...(sponsored ? { sponsoredPermit } : {}) },
    requirements: {
      ...{ x402Version: 2, scheme, network: policy.network, maxTimeoutSeconds: 60 },
      ...{ amount: auth.permitted.amount, asset: auth.permitted.token, payTo: auth.witness.to },
    },
  } as Permit2PaymentRequest
}

const context = (r: Permit2PaymentRequest, now = DEADLINE - MARGIN - 1n): Permit2RuleContext => ({
  request: r,
  policy,
  now,
  contracts: CANONICAL_PERMIT2_CONTRACTS,
  facilitators: [OTHER, PAYER],
})

const codeOf = (c: Permit2RuleContext): string | undefined => {
  const verdict = permit2Rules(c)
  return E.isLeft(verdict) ? explainAnyRefusal(verdict.left, { asset: policy.asset }).reasonCode : undefined
}

type Edit = (r: Permit2PaymentRequest) => Permit2PaymentRequest
const withAuth =
  (change: (a: Permit2PaymentRequest['payload']['permit2Authorization']) => object): Edit =>
  (r) => ({
    ...r,
    payload: {
      ...r.payload,
      permit2Authorization: { ...r.payload.permit2Authorization, ...change(r.payload.permit2Authorization) },
    },
  })
const withSponsored =
  (change: object): Edit =>
  (r) => ({ ...r, payload: { ...r.payload, sponsoredPermit: { ...r.payload.sponsoredPermit!, ...change } } })

describe('the pure Permit2 / upto rules (P1–P3, 4b’, 5c’, 6’, E1)', () => {
  it('payloads made by @x402/evm 2.27 pass them all: exact, exact with a sponsored permit, upto', () => {
    expect(codeOf(context(request('exact')))).to.equal(undefined)
    expect(codeOf(context(request('exact', true)))).to.equal(undefined)
    expect(codeOf(context(request('upto')))).to.equal(undefined)
  })

  it('invalid_permit2_spender: the exact payload sent as upto, and the upto one as exact', () => {
    const asUpto = request('exact')
    const exactAsUpto = {
      ...asUpto,
      payload: { ...asUpto.payload, scheme: 'upto' },
      requirements: { ...asUpto.requirements, scheme: 'upto' },
    }
    expect(codeOf(context(exactAsUpto))).to.equal('invalid_permit2_spender')
    const upto = request('upto')
    const uptoAsExact = {
      ...upto,
      payload: { ...upto.payload, scheme: 'exact' },
      requirements: { ...upto.requirements, scheme: 'exact' },
    }
    expect(codeOf(context(uptoAsExact))).to.equal('invalid_permit2_spender')
  })

  it('invalid_permit2_recipient_mismatch: the witness pays someone else than payTo', () => {
    expect(codeOf(context(withAuth((a) => ({ witness: { ...a.witness, to: OTHER } }))(request('exact'))))).to.equal(
      'invalid_permit2_recipient_mismatch',
    )
  })

  it('upto_facilitator_mismatch: the upto witness names a key not ours; exact ignores the list', () => {
    const r = request('upto')
    expect(codeOf({ ...context(r), facilitators: [OTHER] })).to.equal('upto_facilitator_mismatch')
    expect(codeOf({ ...context(request('exact')), facilitators: [] })).to.equal(undefined)
  })

  it('permit2_not_yet_valid: validAfter = now passes, now + 1 fails', () => {
    const now = DEADLINE - MARGIN - 1n
    const at = (validAfter: bigint) => withAuth((a) => ({ witness: { ...a.witness, validAfter } }))(request('exact'))
    expect(codeOf(context(at(now), now))).to.equal(undefined)
    expect(codeOf(context(at(now + 1n), now))).to.equal('permit2_not_yet_valid')
  })

  it('permit2_deadline_expired: now + margin = deadline − 1 passes, = deadline fails', () => {
    expect(codeOf(context(request('upto'), DEADLINE - MARGIN - 1n))).to.equal(undefined)
    expect(codeOf(context(request('upto'), DEADLINE - MARGIN))).to.equal('permit2_deadline_expired')
  })

  it('permit2_amount_mismatch: the permitted amount is exactly the required one, ±1 fails', () => {
    for (const delta of [1n, -1n]) {
      const r = request('upto')
      const more = { ...r, requirements: { ...r.requirements, amount: r.requirements.amount + delta } }
      expect(codeOf(context(more))).to.equal('permit2_amount_mismatch')
    }
  })

  it('permit2_token_mismatch: the permit moves another token than the asset', () => {
    const r = request('exact')
    expect(codeOf(context({ ...r, requirements: { ...r.requirements, asset: OTHER } }))).to.equal(
      'permit2_token_mismatch',
    )
  })

  it('eip2612_from_mismatch, eip2612_asset_mismatch, eip2612_spender_not_permit2', () => {
    const r = request('exact', true)
    expect(codeOf(context(withSponsored({ from: OTHER })(r)))).to.equal('eip2612_from_mismatch')
    expect(codeOf(context(withSponsored({ asset: OTHER })(r)))).to.equal('eip2612_asset_mismatch')
    expect(codeOf(context(withSponsored({ spender: OTHER })(r)))).to.equal('eip2612_spender_not_permit2')
  })

  it('permit2_2612_amount_mismatch: the permit approves exactly the permitted amount, ±1 fails', () => {
    const r = request('exact', true)
    const amount = r.payload.permit2Authorization.permitted.amount
    expect(codeOf(context(withSponsored({ amount: amount + 1n })(r)))).to.equal('permit2_2612_amount_mismatch')
    expect(codeOf(context(withSponsored({ amount: amount - 1n })(r)))).to.equal('permit2_2612_amount_mismatch')
  })

  it('eip2612_deadline_expired: its own deadline, now + margin = deadline − 1 passes, = deadline fails', () => {
    const r = withSponsored({ deadline: DEADLINE - 10n })(request('exact', true))
    expect(codeOf(context(r, DEADLINE - 10n - MARGIN - 1n))).to.equal(undefined)
    expect(codeOf(context(r, DEADLINE - 10n - MARGIN))).to.equal('eip2612_deadline_expired')
  })
})
