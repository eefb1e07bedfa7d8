import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  explainAnyRefusal,
  verifyPayment,
  ZERO_ADDRESS,
  type PaymentRequest,
  type TokenReader,
  type TransferTrial,
  type EvmVerifyOutcome,
} from '@x402-facilitator/domain'
import {
  BAD_SIGNATURE,
  NOW_S,
  PAYER,
  UNLISTED_FACTORY,
  UNLISTED_FACTORY_SIGNATURE,
  makeDeps,
  policy,
  validRequest,
} from './fakes.js'

type Edit = (r: PaymentRequest) => PaymentRequest
const withPayload = (r: PaymentRequest, p: Partial<PaymentRequest['payload']>): PaymentRequest => ({
  ...r,
  payload: { ...r.payload, ...p },
})
const withAuth = (r: PaymentRequest, a: Partial<PaymentRequest['payload']['authorization']>): PaymentRequest =>
  withPayload(r, { authorization: { ...r.payload.authorization, ...a } })
const withReq = (r: PaymentRequest, q: Partial<PaymentRequest['requirements']>): PaymentRequest => ({
  ...r,
  requirements: { ...r.requirements, ...q },
})

const verify = async (edit: Edit = (r) => r, setup: (d: ReturnType<typeof makeDeps>) => void = () => {}) => {
  const d = makeDeps()
  setup(d)
  const result = await verifyPayment(edit(validRequest()))(d.deps)()
  if (E.isLeft(result)) throw new Error(`unexpected infrastructure failure ${result.left.reason}`)
  return result.right
}
const explained = (outcome: EvmVerifyOutcome) => {
  if (outcome._tag !== 'Invalid') throw new Error('expected a rule failure')
  return explainAnyRefusal(outcome.failure, policy)
}

const reverted = (flags: {
  paused?: boolean
  payerBlacklisted?: boolean
  payeeBlacklisted?: boolean
  reason?: string
}): TransferTrial => ({
  _tag: 'WouldRevert',
  paused: flags.paused ?? false,
  payerBlacklisted: flags.payerBlacklisted ?? false,
  payeeBlacklisted: flags.payeeBlacklisted ?? false,
  ...(flags.reason === undefined ? {} : { reason: flags.reason }),
})

describe('verifyPayment: one test per reason code (docs/ARCHITECTURE.md §3)', () => {
  it('a valid payment passes and names the payer', async () => {
    const outcome = await verify()
    expect(outcome).to.deep.include({ _tag: 'Valid', payer: PAYER })
  })

  const cases: ReadonlyArray<[string, Edit, ((d: ReturnType<typeof makeDeps>) => void) | undefined, string, string]> = [
    [
      '1 version',
      (r) => withPayload(r, { x402Version: 1 }),
      undefined,
      'invalid_x402_version',
      'unsupported x402 version 1: this facilitator speaks version 2',
    ],
    [
      '1 version of the requirements',
      (r) => withReq(r, { x402Version: 3 }),
      undefined,
      'invalid_x402_version',
      'unsupported x402 version 3: this facilitator speaks version 2',
    ],
    [
      '2 scheme',
      (r) => withReq(r, { scheme: 'upto' }),
      undefined,
      'unsupported_scheme',
      'unsupported scheme "upto": it is settled through Permit2 only, for tokens paid by "permit2"',
    ],
    [
      '2 network',
      (r) => withPayload(r, { network: 'base' }),
      undefined,
      'invalid_network',
      'unsupported network "base": this facilitator settles on "eip155:31337"',
    ],
    [
      '3 asset',
      (r) => withReq(r, { asset: `0x${'99'.repeat(20)}` }),
      undefined,
      'invalid_payment_requirements',
      `unsupported asset 0x${'99'.repeat(20)}: this facilitator settles USDC at ${policy.asset.address}`,
    ],
    [
      '4a zero payTo',
      (r) => withAuth(withReq(r, { payTo: ZERO_ADDRESS }), { to: ZERO_ADDRESS }),
      undefined,
      'invalid_payment_requirements',
      'the requirements pay the zero address: tokens sent there are burnt; name a real payTo',
    ],
    [
      '4b zero to',
      (r) => withAuth(r, { to: ZERO_ADDRESS }),
      undefined,
      'invalid_exact_evm_payload_recipient_mismatch',
      `authorization pays ${ZERO_ADDRESS} but the requirements pay ${validRequest().requirements.payTo}`,
    ],
    [
      '5a zero value',
      (r) => withReq(withAuth(r, { value: 0n }), { amount: 0n }),
      undefined,
      'invalid_exact_evm_payload_authorization_value',
      'authorized value is zero: a transfer of nothing is not settled',
    ],
    [
      '5b zero amount',
      (r) => withReq(r, { amount: 0n }),
      undefined,
      'invalid_payment_requirements',
      "required amount 0.0 USDC is below this facilitator's minimum of 0.000001 USDC",
    ],
    [
      '4b recipient',
      (r) => withAuth(r, { to: `0x${'77'.repeat(20)}` }),
      undefined,
      'invalid_exact_evm_payload_recipient_mismatch',
      `authorization pays 0x${'77'.repeat(20)} but the requirements pay ${validRequest().requirements.payTo}`,
    ],
    [
      '5c value',
      (r) => withAuth(r, { value: 500_000n }),
      undefined,
      'invalid_exact_evm_payload_authorization_value',
      'authorized value 0.5 USDC is below the required 1.0 USDC',
    ],
    [
      '6 not yet valid',
      (r) => withAuth(r, { validAfter: NOW_S }),
      undefined,
      'invalid_exact_evm_payload_authorization_valid_after',
      `authorization not yet valid: validAfter ${NOW_S} is not before now (${NOW_S})`,
    ],
    [
      '6 expires within the margin',
      (r) => withAuth(r, { validBefore: NOW_S + 6n }),
      undefined,
      'invalid_exact_evm_payload_authorization_valid_before',
      `authorization expired or expires too soon: validBefore ${NOW_S + 6n} must be after now + 6 s (${NOW_S + 6n})`,
    ],
    [
      '7 signature',
      (r) => withPayload(r, { signature: BAD_SIGNATURE }),
      undefined,
      'invalid_exact_evm_payload_signature',
      'invalid signature: recovered another signer',
    ],
    [
      '7 ERC-6492 factory not allowed',
      (r) => withPayload(r, { signature: UNLISTED_FACTORY_SIGNATURE }),
      undefined,
      'erc6492_factory_not_allowed',
      `the payer's wallet is not deployed yet and its ERC-6492 factory ${UNLISTED_FACTORY} is not on this ` +
        `facilitator's allowlist (setting ERC6492_FACTORIES): settling would make the facilitator call that ` +
        `factory`,
    ],
    [
      '8 nonce used',
      (r) => r,
      (d) => (d.token.state = { ...d.token.state, authorizationUsed: true }),
      'authorization_already_used',
      'authorization already used: its nonce was spent or cancelled on-chain',
    ],
    [
      '9 balance',
      (r) => r,
      (d) => (d.token.state = { ...d.token.state, balance: 500_000n }),
      'insufficient_funds',
      'insufficient balance of USDC: 0.5 available, 1.0 required',
    ],
    [
      '9 balance less what is in flight here',
      (r) => r,
      (d) => void d.exposure.reserve(PAYER, 4_500_000n, d.token.state.balance),
      'insufficient_funds',
      'insufficient balance of USDC: 0.5 available, 1.0 required',
    ],
    [
      '10 token paused',
      (r) => r,
      (d) => (d.token.transfer = reverted({ paused: true, payerBlacklisted: true })),
      'token_paused',
      'USDC is paused by its issuer: no transfer can settle until it is unpaused',
    ],
    [
      '10 payer blacklisted',
      (r) => r,
      (d) => (d.token.transfer = reverted({ payerBlacklisted: true, payeeBlacklisted: true })),
      'payer_blacklisted',
      `the payer ${PAYER} is blacklisted by the USDC contract: it cannot send`,
    ],
    [
      '10 payee blacklisted',
      (r) => r,
      (d) => (d.token.transfer = reverted({ payeeBlacklisted: true })),
      'payee_blacklisted',
      `the payee ${validRequest().payload.authorization.to} is blacklisted by the USDC contract: it cannot receive`,
    ],
    [
      '10 any other revert',
      (r) => r,
      (d) => (d.token.transfer = reverted({ reason: 'FiatTokenV2: invalid signature' })),
      'invalid_transaction_state',
      'the transfer would revert on-chain: FiatTokenV2: invalid signature; nothing was sent',
    ],
    [
      '10 a revert without a message',
      (r) => r,
      (d) => (d.token.transfer = reverted({})),
      'invalid_transaction_state',
      'the transfer would revert on-chain; nothing was sent',
    ],
    [
      '9 before 10: a short balance is named as such',
      (r) => r,
      (d) => {
        d.token.state = { ...d.token.state, balance: 500_000n }
        d.token.transfer = reverted({ reason: 'ERC20: transfer amount exceeds balance' })
      },
      'insufficient_funds',
      'insufficient balance of USDC: 0.5 available, 1.0 required',
    ],
  ]
  for (const [label, edit, setup, reasonCode, message] of cases) {
    it(`rule ${label} → ${reasonCode}`, async () => {
      expect(explained(await verify(edit, setup))).to.deep.equal({ reasonCode, message })
    })
  }

  it('rule 5b: a required amount below the configured minimum is refused, one at the minimum passes', async () => {
    const d = makeDeps()
    const strict = { ...d.deps, policy: { ...policy, minAmount: 1_000_001n } }
    const below = await verifyPayment(validRequest())(strict)()
    expect(E.isRight(below) && explained(below.right)).to.deep.equal({
      reasonCode: 'invalid_payment_requirements',
      message: "required amount 1.0 USDC is below this facilitator's minimum of 1.000001 USDC",
    })
    const atMinimum = await verifyPayment(validRequest())({ ...strict, policy: { ...policy, minAmount: 1_000_000n } })()
    expect(E.isRight(atMinimum) && atMinimum.right._tag).to.equal('Valid')
  })

  it('rule 2b with several networks served: one served by none names them all; one served elsewhere, this one', async () => {
    const several = { ...makeDeps().deps, policy: { ...policy, servedNetworks: [policy.network, 'polygon'] } }
    const verifyOn = async (network: string) => {
      const result = await verifyPayment(withPayload(validRequest(), { network }))(several)()
      if (E.isLeft(result)) throw new Error(result.left.reason)
      return result.right
    }
    const unserved = await verifyOn('base')
    expect(explained(unserved).message).to.equal(
      `unsupported network "base": this facilitator settles on "${policy.network}", "polygon"`,
    )
    // The payload names polygon, the requirements this route's network: they disagree.
    const mixed = await verifyOn('polygon')
    expect(explained(mixed).message).to.equal(
      `unsupported network "polygon": this facilitator settles on "${policy.network}"`,
    )
  })

  it('first failure wins: a wrong network is reported before a low value', async () => {
    const outcome = await verify((r) => withAuth(withPayload(r, { network: 'base' }), { value: 1n }))
    expect(explained(outcome).reasonCode).to.equal('invalid_network')
  })

  it('a request failing rules 1–6 never reads the chain', async () => {
    const d = makeDeps()
    await verifyPayment(withAuth(validRequest(), { value: 1n }))(d.deps)()
    expect(d.token.reads).to.equal(0)
  })

  it("rule 10 not tried (the node's latest block is older than validAfter) is no refusal: the chain decides at settle", async () => {
    const outcome = await verify(
      (r) => r,
      (d) => (d.token.transfer = { _tag: 'NotTried', why: 'the latest block is older than validAfter' }),
    )
    expect(outcome._tag).to.equal('Valid')
  })

  it('the chain unreachable → ChainUnavailable, not a rule failure', async () => {
    const d = makeDeps()
    d.token.down = true
    const result = await verifyPayment(validRequest())(d.deps)()
    expect(E.isLeft(result) && result.left._tag).to.equal('ChainUnavailable')
  })

  it('a bad signature is answered as such even while the chain is unreachable (rule 7 before 8)', async () => {
    const outcome = await verify(
      (r) => withPayload(r, { signature: BAD_SIGNATURE }),
      (d) => (d.token.down = true),
    )
    expect(explained(outcome).reasonCode).to.equal('invalid_exact_evm_payload_signature')
  })
})

describe('verifyPayment: "payer has code" is the chain\'s answer (review finding 1)', () => {
  const v01: `0x${string}` = `0x${'33'.repeat(64)}01`
  /** Rule 7 accepts `v01` by key; the trial records the bytes it ran and says whether the payer has code. */
  const deps = (payerHasCode: boolean) => {
    const d = makeDeps()
    const tried: string[] = []
    const trialPayment: TokenReader['trialPayment'] = (_authorization, signature) => {
      tried.push(signature)
      return async () =>
        E.right({
          balance: 5_000_000n,
          authorizationUsed: false,
          payerHasCode,
          transfer: { _tag: 'WouldSucceed', gasUsed: 60_000n } as TransferTrial,
        })
    }
    const signatures = {
      checkAuthorization: () => async () => E.right({ _tag: 'SignatureValid', byKey: true } as const),
    }
    return { deps: { ...d.deps, token: { ...d.token, trialPayment }, signatures }, tried }
  }

  it('a key-recovered v 0/1 signature of a payer with no code is sent as 27/28', async () => {
    const { deps: ds, tried } = deps(false)
    const outcome = await verifyPayment(withPayload(validRequest(), { signature: v01 }))(ds)()
    expect(outcome).to.deep.include({ _tag: 'Right' })
    const valid = E.isRight(outcome) && outcome.right._tag === 'Valid' ? outcome.right : undefined
    expect(valid).to.deep.include({ payerHasCode: false, signature: `0x${'33'.repeat(64)}1c` })
    expect(tried).to.deep.equal([`0x${'33'.repeat(64)}1c`])
  })

  it('an EIP-7702-delegated EOA (recovers by key, has code): a payer with code, its bytes tried and sent verbatim', async () => {
    const { deps: ds, tried } = deps(true)
    const outcome = await verifyPayment(withPayload(validRequest(), { signature: v01 }))(ds)()
    const valid = E.isRight(outcome) && outcome.right._tag === 'Valid' ? outcome.right : undefined
    expect(valid).to.deep.include({ payerHasCode: true, signature: v01 })
    expect(tried.at(-1)).to.equal(v01)
  })
})
