import type { Authorization, Eip712Domain, Hex, SignatureCheck } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { hashTypedData, recoverTypedDataAddress } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { makeChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeEip55AddressChecksum } from '../src/evm/signing/eip55-address-checksum.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeSecp256k1SignatureVerifier, SECP256K1_N } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../src/evm/signing/sign-transfer-authorization.js'
import { makeTransferAuthorizationDigest } from '../src/evm/signing/transfer-authorization-digest.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES

/** The malleable twin of a signature: s' = n − s, v flipped. Recovers to the same key, but is high-s. */
const highSTwin = (signature: Hex): Hex => {
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = parseInt(signature.slice(130, 132), 16)
  const twinS = (SECP256K1_N - s).toString(16).padStart(64, '0')
  return `${signature.slice(0, 66)}${twinS}${(v === 27 ? 28 : 27).toString(16)}` as Hex
}

const invalidDetail = (check: SignatureCheck): string => {
  expect(check._tag).to.equal('SignatureInvalid')
  return check._tag === 'SignatureInvalid' ? check.detail : ''
}

describe('Secp256k1SignatureVerifier (anvil)', () => {
  let chain: LocalChain
  let domain: Eip712Domain
  let check: (authorization: Authorization, signature: Hex) => Promise<SignatureCheck>

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    const reader = makeRpcTokenReader(makeChainRpc({ rpcUrl: chain.rpcUrl }), chain.tokenAddress)
    domain = await right(reader.domain)
    const verifier = makeSecp256k1SignatureVerifier(reader.domain)
    check = (authorization, signature) => right(verifier.checkAuthorization(authorization, signature))
  })
  after(async () => {
    await chain?.stop()
  })

  const payee = '0x00000000000000000000000000000000000000cc' as const

  it('computes the same digest as viem hashTypedData', async () => {
    const authorization = authorizationFrom(chain.payers[0]!, payee, 123_456n)
    const digest = makeTransferAuthorizationDigest(domain)(authorization)
    expect(digest).to.be.instanceOf(Uint8Array)
    const expected = hashTypedData({
      domain,
      types: TYPES,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    })
    expect(Buffer.from(digest as Uint8Array).toString('hex')).to.equal(expected.slice(2))
  })

  it('accepts the payer signature, with v as 27/28 or 0/1', async () => {
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 1_000_000n),
    )
    expect(await check(authorization, signature)).to.deep.equal({ _tag: 'SignatureValid', byKey: true })
    const v01 = `${signature.slice(0, 130)}0${parseInt(signature.slice(130), 16) - 27}` as Hex
    expect(await check(authorization, v01)).to.deep.equal({ _tag: 'SignatureValid', byKey: true })
  })

  it('rejects a signature by another key', async () => {
    const impostor = { address: chain.payers[0]!.address, privateKey: generatePrivateKey() }
    const { authorization, signature } = await signedBy(
      impostor,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 1n),
    )
    expect(invalidDetail(await check(authorization, signature))).to.match(/not to the payer/)
  })

  it('rejects a tampered field', async () => {
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 1_000n),
    )
    for (const tampered of [
      { ...authorization, value: 1_001n },
      { ...authorization, to: '0x00000000000000000000000000000000000000cd' as const },
      { ...authorization, validBefore: authorization.validBefore + 1n },
      { ...authorization, nonce: `0x${'ab'.repeat(32)}` as const },
    ]) {
      expect(invalidDetail(await check(tampered, signature))).to.match(/recovers to 0x[0-9a-f]{40}, not to the payer/)
    }
  })

  it('rejects malformed signatures', async () => {
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 5n),
    )
    expect(invalidDetail(await check(authorization, signature.slice(0, 128) as Hex))).to.match(/65 bytes/)
    expect(invalidDetail(await check(authorization, `${signature}00` as Hex))).to.match(/65 bytes/)
    expect(invalidDetail(await check(authorization, `${signature.slice(0, 130)}1d` as Hex))).to.match(/v must be/)
    expect(invalidDetail(await check(authorization, `0x${'zz'.repeat(65)}` as Hex))).to.match(/not hex/)
    expect(invalidDetail(await check(authorization, `0x${'00'.repeat(64)}1b` as Hex))).to.match(/r out of range/)
    const rAboveN = SECP256K1_N.toString(16)
    expect(invalidDetail(await check(authorization, `0x${rAboveN}${signature.slice(66)}` as Hex))).to.match(
      /r out of range/,
    )
  })

  it('rejects the high-s twin, which viem (and ecrecover) would accept', async () => {
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 7n),
    )
    const twin = highSTwin(signature)
    const recovered = await recoverTypedDataAddress({
      domain,
      types: TYPES,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
      signature: twin,
    })
    expect(recovered.toLowerCase()).to.equal(chain.payers[0]!.address)
    expect(invalidDetail(await check(authorization, twin))).to.match(/high/)
  })

  it('fails with ChainUnavailable (not an exception) when the domain cannot be read', async () => {
    const verifier = makeSecp256k1SignatureVerifier(TE.left({ _tag: 'ChainUnavailable', reason: 'down' }))
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 7n),
    )
    expect(await verifier.checkAuthorization(authorization, signature)()).to.deep.equal({
      _tag: 'Left',
      left: { _tag: 'ChainUnavailable', reason: 'down' },
    })
  })
})

describe('Eip55AddressChecksum', () => {
  it('matches the EIP-55 test vectors', () => {
    const checksum = makeEip55AddressChecksum()
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0xde709f2102306220921060314715629080e2fb77',
    ]) {
      expect(checksum(address.toLowerCase())).to.equal(address)
    }
  })
})
