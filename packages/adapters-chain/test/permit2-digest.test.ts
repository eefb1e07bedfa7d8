import type {
  EvmAddress as Address,
  Hex,
  Permit2Authorization as CanonicalAuthorization,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { EXACT_PERMIT2_PAYLOAD, UPTO_PAYLOAD } from '@x402-facilitator/domain/permit2-golden'
import { expect } from 'chai'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeErc1271Check } from '../src/evm/wallets/erc1271-check.js'
import {
  permit2Digest,
  verifyPermit2Signature,
  verifyPermit2SignatureByKey,
} from '../src/evm/permit2/permit2-digest.js'
import { bytesToHex } from '../src/evm/hex-bytes.js'
import { generatePrivateKey, sign } from 'viem/accounts'
import { recoverAddress, parseSignature } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { deployDemoUsdt, deployPermit2Suite, type DemoUsdt, type Permit2Suite } from '../src/testing/index.js'
import { mined, revertReasonOf } from './demo-token-calls.js'
import {
  approvePermit2,
  balanceOf,
  customError,
  exactSettleCall,
  uptoSettleCall,
  officialPermit2Payload,
  type SignedPermit2,
} from './permit2-payments.js'

/** The wire authorization in the domain's canonical form (as the v2 codec decodes it). */
const canonical = ({ permit2Authorization: a }: SignedPermit2): CanonicalAuthorization => ({
  from: a.from.toLowerCase() as Address,
  permitted: { token: a.permitted.token.toLowerCase() as Address, amount: BigInt(a.permitted.amount) },
  spender: a.spender.toLowerCase() as Address,
  nonce: `0x${BigInt(a.nonce).toString(16).padStart(64, '0')}`,
  deadline: BigInt(a.deadline),
  witness: {
    to: a.witness.to.toLowerCase() as Address,
    validAfter: BigInt(a.witness.validAfter),
    ...(a.witness.facilitator ? { facilitator: a.witness.facilitator.toLowerCase() as Address } : {}),
  },
})

/** `signed` with another permitted amount, its signature kept. */
const tampered = (signed: SignedPermit2, amount: bigint): SignedPermit2 => ({
  ...signed,
  permit2Authorization: {
    ...signed.permit2Authorization,
    permitted: { ...signed.permit2Authorization.permitted, amount: String(amount) },
  },
})

// Rule P7: our Permit2 digest is the one Permit2 checks, for payloads made by @x402/evm 2.27's own clients.
describe('Permit2 witness digest and signature (rule P7), against Permit2 on anvil', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let suite: Permit2Suite
  let dusdt: DemoUsdt
  const payTo: Address = '0x00000000000000000000000000000000000000dd'

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    suite = await deployPermit2Suite(rpc)
    dusdt = await deployDemoUsdt(rpc, { payers: chain.payers.map((p) => p.address), units: 10_000_000n })
    await approvePermit2(rpc, suite, dusdt.address, chain.payers[0]!.address)
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  const payment = (facilitator?: Address) => ({ token: dusdt.address, amount: 1_000_000n, payTo, facilitator })

  it('the golden payloads (made by @x402/evm 2.27 for chain 31337) recover to their payer', () => {
    const golden = { exact: EXACT_PERMIT2_PAYLOAD, upto: UPTO_PAYLOAD }
    for (const scheme of ['exact', 'upto'] as const) {
      const signed = golden[scheme] as SignedPermit2
      const domain = { chainId: 31337n, permit2: suite.permit2 }
      expect(verifyPermit2SignatureByKey(scheme, canonical(signed), signed.signature, domain)).to.deep.equal({
        _tag: 'SignatureValid',
        byKey: true,
      })
    }
  })

  for (const scheme of ['exact', 'upto'] as const) {
    it(`${scheme}: the digest of the official client's payload recovers to its payer`, async () => {
      const payer = chain.payers[0]!
      const signed = await officialPermit2Payload(scheme, payer, suite.chainId, payment(chain.facilitator.address))
      const digest = permit2Digest(scheme, canonical(signed), suite)
      const parts = parseSignature(signed.signature)
      if (typeof parts === 'string') return expect.fail(parts)
      expect(recoverAddress(digest, parts.compact, parts.recoveryId)).to.equal(payer.address)
      expect(verifyPermit2SignatureByKey(scheme, canonical(signed), signed.signature, suite)).to.deep.equal({
        _tag: 'SignatureValid',
        byKey: true,
      })
      // The other scheme's witness type gives another digest: an exact signature is no upto one.
      const other = scheme === 'exact' ? 'upto' : 'exact'
      expect(verifyPermit2SignatureByKey(other, canonical(signed), signed.signature, suite)._tag).to.equal(
        'SignatureInvalid',
      )
    })
  }

  it('a payload we accept settles through the exact proxy; one we refuse (amount tampered) reverts on chain', async () => {
    const payer = chain.payers[0]!
    const signed = await officialPermit2Payload('exact', payer, suite.chainId, payment())
    const forged = tampered(signed, 2_000_000n)
    expect(verifyPermit2SignatureByKey('exact', canonical(forged), forged.signature, suite)._tag).to.equal(
      'SignatureInvalid',
    )
    expect(await revertReasonOf(rpc, exactSettleCall(suite, chain.facilitator.address, forged))).to.equal(
      customError('InvalidSigner()'),
    )

    expect(verifyPermit2SignatureByKey('exact', canonical(signed), signed.signature, suite)._tag).to.equal(
      'SignatureValid',
    )
    const before = await balanceOf(rpc, dusdt.address, payTo)
    await mined(rpc, exactSettleCall(suite, chain.facilitator.address, signed))
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before + 1_000_000n)
  })

  it('upto: a payload we accept settles through the upto proxy; with its amount tampered, we and Permit2 refuse', async () => {
    const payer = chain.payers[0]!
    const facilitator = chain.facilitator.address
    const signed = await officialPermit2Payload('upto', payer, suite.chainId, payment(facilitator))
    const forged = tampered(signed, 2_000_000n)
    expect(verifyPermit2SignatureByKey('upto', canonical(forged), forged.signature, suite)._tag).to.equal(
      'SignatureInvalid',
    )
    expect(await revertReasonOf(rpc, uptoSettleCall(suite, facilitator, forged, 500_000n))).to.equal(
      customError('InvalidSigner()'),
    )

    expect(verifyPermit2SignatureByKey('upto', canonical(signed), signed.signature, suite)._tag).to.equal(
      'SignatureValid',
    )
    const before = await balanceOf(rpc, dusdt.address, payTo)
    await mined(rpc, uptoSettleCall(suite, facilitator, signed, 500_000n))
    expect(await balanceOf(rpc, dusdt.address, payTo)).to.equal(before + 500_000n)
  })

  it('a deployed smart-wallet payer: the owner signature of the digest is accepted (ERC-1271), another key not', async () => {
    const wallet = chain.smartWallets.deployed
    const signed = await officialPermit2Payload('exact', chain.payers[0]!, suite.chainId, payment())
    const authorization = { ...canonical(signed), from: wallet.address }
    const hash = bytesToHex(permit2Digest('exact', authorization, suite))
    const verdict = async (privateKey: Hex) => {
      const signature = await sign({ hash, privateKey, to: 'hex' })
      const result = await verifyPermit2Signature('exact', authorization, signature, suite, makeErc1271Check(rpc))()
      return E.isRight(result) ? result.right._tag : expect.fail(result.left.reason)
    }
    expect(await verdict(wallet.ownerPrivateKey)).to.equal('SignatureValid')
    expect(await verdict(generatePrivateKey())).to.equal('SignatureInvalid')
  })
})
