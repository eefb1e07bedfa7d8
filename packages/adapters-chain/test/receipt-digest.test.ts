import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { hashTypedData, type Hex } from 'viem'
import { bytesToHex } from '../src/evm/hex-bytes.js'
import { makeReceiptDigest } from '../src/evm/receipts/receipt-digest.js'
import { RECEIPT_DOMAIN, SETTLEMENT_RECEIPT_TYPES } from '../src/evm/receipts/settlement-attestor.js'

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`
const uint = (bits: number): string => BigInt(`0x${randomBytes(bits / 8).toString('hex')}`).toString()
const pick = <T>(values: ReadonlyArray<T>): T => values[randomBytes(1)[0]! % values.length]!

const message = (): Record<string, string> => ({
  network: pick(['eip155:8453', 'eip155:84532', 'eip155:1', 'ünïcode ✓']),
  asset: hex(20),
  payer: hex(20),
  payee: hex(20),
  value: pick(['0', '1', uint(256), uint(64)]),
  maxAmount: uint(256),
  nonce: hex(32),
  scheme: pick(['exact', 'upto']),
  transferMethod: pick(['eip3009', 'permit2']),
  transactionHash: hex(32),
  blockNumber: uint(64),
  blockHash: pick([hex(32), `0x${'0'.repeat(64)}`]),
  state: pick(['confirmed', 'final']),
  recordedAt: pick(['0', uint(32), (2n ** 64n - 1n).toString()]),
})

describe('the settlement receipt digest', () => {
  const digestOf = makeReceiptDigest(RECEIPT_DOMAIN, 'SettlementReceipt', SETTLEMENT_RECEIPT_TYPES)

  it("equals viem's hashTypedData, for 200 random receipts on several chains", () => {
    for (let i = 0; i < 200; i++) {
      const chainId = pick([1, 8453, 84532, 31337, 2 ** 40])
      const typed = {
        domain: { ...RECEIPT_DOMAIN, chainId },
        types: SETTLEMENT_RECEIPT_TYPES,
        primaryType: 'SettlementReceipt',
        message: message(),
      } as const
      const expected = hashTypedData(typed as unknown as Parameters<typeof hashTypedData>[0])
      const digest = digestOf(chainId, typed.message)
      expect(digest, JSON.stringify(typed.message)).to.be.instanceOf(Uint8Array)
      expect(bytesToHex(digest as Uint8Array)).to.equal(expected)
    }
  })

  it('names the field it cannot encode', () => {
    expect(digestOf(1, { ...message(), asset: '0x1234' })).to.equal('asset is not an address')
    expect(digestOf(1, { ...message(), nonce: hex(31) })).to.equal('nonce is not bytes32')
    expect(digestOf(1, { ...message(), value: (2n ** 256n).toString() })).to.equal('value out of uint256 range')
    expect(digestOf(1, { ...message(), recordedAt: (2n ** 64n).toString() })).to.equal('recordedAt out of uint64 range')
    expect(digestOf(1, { ...message(), blockNumber: '-1' })).to.equal('blockNumber out of uint256 range')
  })
})
