import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { makeErc1271Check } from '../src/evm/wallets/erc1271-check.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeSecp256k1SignatureVerifier } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { right } from './fixtures.js'
import { permit2Chain } from './permit2-chain.js'
import { officialPermit2Payload, permit2AuthorizationOf } from './permit2-payments.js'

// Rule P7 through the route's SignatureVerifier: an Authorization with `permit2` is checked against Permit2's digest.
describe('SignatureVerifier: Permit2 payments signed by @x402/evm 2.27 (anvil)', () => {
  const t = permit2Chain(1_000_000n)
  const payTo: Address = '0x00000000000000000000000000000000000000dd'
  const verifier = () =>
    makeSecp256k1SignatureVerifier(
      makeRpcTokenReader(t.rpc, t.dusdt.address).domain,
      makeErc1271Check(t.rpc),
      undefined,
      {
        permit2: t.suite.permit2,
      },
    )

  it('exact: accepts the client signature by key, refuses it for another payee', async () => {
    const payment = { token: t.dusdt.address, amount: 5_000n, payTo }
    const signed = await officialPermit2Payload('exact', t.chain.payers[0]!, t.suite.chainId, payment)
    const authorization = permit2AuthorizationOf('exact', signed)
    expect(await right(verifier().checkAuthorization(authorization, signed.signature))).to.deep.equal({
      _tag: 'SignatureValid',
      byKey: true,
    })
    const other = { ...authorization, to: '0x00000000000000000000000000000000000000ee' as Address }
    const refused = await right(verifier().checkAuthorization(other, signed.signature))
    expect(refused._tag).to.equal('SignatureInvalid')
  })

  it('upto: accepts the client signature with its witness facilitator and any amount up to the maximum, refuses another facilitator', async () => {
    const payment = { token: t.dusdt.address, amount: 9_000n, payTo, facilitator: t.chain.facilitator.address }
    const signed = await officialPermit2Payload('upto', t.chain.payers[1]!, t.suite.chainId, payment)
    const authorization = permit2AuthorizationOf('upto', signed, 4_000n)
    expect((await right(verifier().checkAuthorization(authorization, signed.signature)))._tag).to.equal(
      'SignatureValid',
    )
    const other = {
      ...authorization,
      permit2: { ...authorization.permit2!, facilitator: '0x00000000000000000000000000000000000000ee' as Address },
    }
    expect((await right(verifier().checkAuthorization(other, signed.signature)))._tag).to.equal('SignatureInvalid')
  })

  it('refuses a Permit2 signature checked under another Permit2 address (its domain)', async () => {
    const payment = { token: t.dusdt.address, amount: 5_000n, payTo }
    const signed = await officialPermit2Payload('exact', t.chain.payers[0]!, t.suite.chainId, payment)
    const elsewhere = makeSecp256k1SignatureVerifier(
      makeRpcTokenReader(t.rpc, t.dusdt.address).domain,
      undefined,
      undefined,
      {
        permit2: '0x00000000000000000000000000000000000000ff',
      },
    )
    const check = await right(elsewhere.checkAuthorization(permit2AuthorizationOf('exact', signed), signed.signature))
    expect(check._tag).to.equal('SignatureInvalid')
  })
})
