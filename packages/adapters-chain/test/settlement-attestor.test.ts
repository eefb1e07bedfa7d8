import type { Hex, ReceiptFacts } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { verifyTypedData } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { makeSettlementAttestor } from '../src/evm/receipts/settlement-attestor.js'

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`

const facts: ReceiptFacts = {
  network: 'eip155:8453',
  asset: hex(20),
  payer: hex(20),
  payee: hex(20),
  value: 700_000n,
  maxAmount: 1_000_000n,
  nonce: hex(32),
  scheme: 'upto',
  transferMethod: 'permit2',
  txHash: hex(32),
  blockNumber: 123n,
  blockHash: hex(32),
  state: 'confirmed',
}

describe('settlement receipts (EIP-712, signed by the attestation key)', () => {
  const key = generatePrivateKey()
  const attestor = makeSettlementAttestor(key, { now: () => new Date(1_764_000_000_500), retired: [hex(20)] })
  // An altered signature may not even be a curve point: viem then throws, which fails verification as well.
  const verify = (receipt: ReturnType<typeof attestor.attest>) =>
    verifyTypedData({
      ...(receipt as Parameters<typeof verifyTypedData>[0]),
      address: attestor.current as `0x${string}`,
    }).catch(() => false)

  it('carries its whole typed data, the chain id of its network, and verifies with viem against the key account', async () => {
    const receipt = attestor.attest(facts)
    expect(attestor.current).to.equal(privateKeyToAccount(key).address.toLowerCase())
    expect(receipt.domain).to.deep.equal({ name: 'x402 facilitator receipt', version: '1', chainId: 8453 })
    expect(receipt.primaryType).to.equal('SettlementReceipt')
    expect(receipt.message).to.include({ value: '700000', maxAmount: '1000000', recordedAt: '1764000000' })
    expect(receipt.message).to.include({ scheme: 'upto', transferMethod: 'permit2', state: 'confirmed' })
    expect(JSON.parse(JSON.stringify(receipt))).to.deep.equal(receipt)
    expect(await verify(JSON.parse(JSON.stringify(receipt)))).to.equal(true)
  })

  it('fails verification once any message field, the domain or the signature is altered', async () => {
    const receipt = attestor.attest(facts)
    for (const [field, value] of Object.entries(receipt.message)) {
      const other = value.startsWith('0x')
        ? `0x${(value.slice(2, -1) + (value.endsWith('0') ? '1' : '0')).toLowerCase()}`
        : /^[0-9]+$/.test(value)
          ? (BigInt(value) + 1n).toString()
          : `${value}x`
      const altered = { ...receipt, message: { ...receipt.message, [field]: other } }
      expect(await verify(altered), field).to.equal(false)
    }
    expect(await verify({ ...receipt, domain: { ...receipt.domain, chainId: 1 } })).to.equal(false)
    expect(await verify({ ...receipt, domain: { ...receipt.domain, name: 'x402 facilitator' } })).to.equal(false)
    const sig = receipt.signature
    const flipped: Hex = `${sig.slice(0, 10)}${sig[10] === '0' ? '1' : '0'}${sig.slice(11)}` as Hex
    expect(await verify({ ...receipt, signature: flipped })).to.equal(false)
    const forged = makeSettlementAttestor(generatePrivateKey(), { now: () => new Date() }).attest(facts)
    expect(await verify(forged)).to.equal(false)
  })

  it('names the zero hash for a block the node gave no hash of, the recorded time when given (the same facts, the same receipt), and refuses a key that is not a secp256k1 key', () => {
    const { blockHash: _omitted, ...withoutHash } = facts
    expect(attestor.attest(withoutHash).message.blockHash).to.equal(`0x${'0'.repeat(64)}`)
    const recorded = attestor.attest({ ...facts, recordedAt: new Date(1_700_000_000_999) })
    expect(recorded.message.recordedAt).to.equal('1700000000')
    expect(attestor.attest({ ...facts, recordedAt: new Date(1_700_000_000_999) })).to.deep.equal(recorded)
    expect(() => makeSettlementAttestor(`0x${'0'.repeat(64)}`, { now: () => new Date() })).to.throw(/attestation/)
  })
})
