import {
  receiptOfEvent,
  receiptOfRequest,
  receiptOfRow,
  type EvmAddress as Address,
  type PaymentRequest,
  type Permit2PaymentRequest,
  type Settlement,
} from '@x402-facilitator/domain'
import { expect } from 'chai'
import { BLOCK_42, NOW, PAYEE, PAYER, TOKEN } from './sample-values.js'

const NONCE = `0x${'0a'.repeat(32)}` as const
const TX = `0x${'ee'.repeat(32)}` as const
const requirements = (scheme: string, amount: bigint) => ({
  x402Version: 2,
  scheme,
  network: 'local',
  amount,
  asset: TOKEN,
  payTo: PAYEE,
  maxTimeoutSeconds: 60,
})
const landing = { payer: PAYER, txHash: TX, blockNumber: 42n, blockHash: BLOCK_42, state: 'confirmed' } as const
const PROXY: Address = `0x${'40'.repeat(20)}`
const permit2 = (scheme: string, amount: bigint): Permit2PaymentRequest => ({
  payload: {
    x402Version: 2,
    scheme,
    network: 'local',
    signature: `0x${'11'.repeat(65)}`,
    permit2Authorization: {
      from: PAYER,
      permitted: { token: TOKEN, amount: 5_000_000n },
      spender: PROXY,
      nonce: NONCE,
      deadline: 2_000_000_000n,
      witness: { to: PAYEE, validAfter: 0n },
    },
  },
  requirements: requirements(scheme, amount),
})

describe('settlement receipt facts (docs/ARCHITECTURE.md §4)', () => {
  it('an EIP-3009 settle: what the authorization moved, the maximum its value', () => {
    const request: PaymentRequest = {
      payload: {
        x402Version: 2,
        scheme: 'exact',
        network: 'local',
        signature: `0x${'11'.repeat(65)}`,
        authorization: { from: PAYER, to: PAYEE, value: 7n, validAfter: 0n, validBefore: 9n, nonce: NONCE },
      },
      requirements: requirements('exact', 7n),
    }
    expect(receiptOfRequest('eip155:1', request, landing)).to.deep.equal({
      network: 'eip155:1',
      asset: TOKEN,
      payer: PAYER,
      payee: PAYEE,
      value: 7n,
      maxAmount: 7n,
      nonce: NONCE,
      scheme: 'exact',
      transferMethod: 'eip3009',
      txHash: TX,
      blockNumber: 42n,
      blockHash: BLOCK_42,
      state: 'confirmed',
    })
  })

  it('Permit2: exact moves the permitted amount; upto the amount charged, below the permitted maximum', () => {
    expect(receiptOfRequest('eip155:1', permit2('exact', 5_000_000n), landing)).to.deep.include({
      value: 5_000_000n,
      maxAmount: 5_000_000n,
      scheme: 'exact',
      transferMethod: 'permit2',
      payee: PAYEE,
    })
    expect(receiptOfRequest('eip155:1', permit2('upto', 1_234_567n), landing)).to.deep.include({
      value: 1_234_567n,
      maxAmount: 5_000_000n,
      scheme: 'upto',
      transferMethod: 'permit2',
    })
  })

  it('a row: only confirmed or final with a transaction and its block, timed by its last change', () => {
    const row = {
      network: 'local',
      asset: TOKEN,
      payer: PAYER,
      nonce: NONCE,
      payee: PAYEE,
      value: 700n,
      permit2: { scheme: 'upto', permitted: 1000n, spender: PROXY },
      state: 'final',
      txHash: TX,
      blockNumber: 42n,
      blockHash: BLOCK_42,
      updatedAt: NOW,
    } as unknown as Settlement
    expect(receiptOfRow('eip155:1', row)).to.deep.include({
      value: 700n,
      maxAmount: 1000n,
      scheme: 'upto',
      transferMethod: 'permit2',
      state: 'final',
      recordedAt: NOW,
    })
    for (const state of ['claimed', 'submitted', 'reverted', 'released', 'cancelled', 'unsettleable'])
      expect(receiptOfRow('eip155:1', { ...row, state } as Settlement), state).to.equal(undefined)
    const { txHash: _tx, ...noTransaction } = row
    expect(receiptOfRow('eip155:1', noTransaction as Settlement)).to.equal(undefined)
  })

  it('an event: the receipt of the state it left, timed when it was recorded; none without its receipt fields', () => {
    const settlement = {
      id: '7',
      network: 'local',
      chainId: 'eip155:1',
      asset: TOKEN,
      payer: PAYER,
      payee: PAYEE,
      nonce: NONCE,
      value: '700',
      maxAmount: '1000',
      scheme: 'upto',
      transferMethod: 'permit2',
      state: 'final',
      transaction: TX,
      blockNumber: '42',
      blockHash: BLOCK_42,
      note: null,
    }
    const event = { eventId: 'e', kind: 'final', fromState: 'confirmed', toState: 'final', createdAt: NOW, settlement }
    expect(receiptOfEvent(event)).to.deep.equal({
      network: 'eip155:1',
      asset: TOKEN.toLowerCase(),
      payer: PAYER.toLowerCase(),
      payee: PAYEE.toLowerCase(),
      nonce: NONCE,
      value: 700n,
      maxAmount: 1000n,
      scheme: 'upto',
      transferMethod: 'permit2',
      state: 'final',
      txHash: TX,
      blockNumber: 42n,
      blockHash: BLOCK_42.toLowerCase(),
      recordedAt: NOW,
    })
    const without = (field: string) => ({ ...event, settlement: { ...settlement, [field]: undefined } })
    expect(receiptOfEvent(without('maxAmount')), 'recorded before migration 0010').to.equal(undefined)
    expect(receiptOfEvent(without('transaction'))).to.equal(undefined)
    expect(receiptOfEvent({ ...event, settlement: { ...settlement, state: 'submitted' } })).to.equal(undefined)
    expect(receiptOfEvent({ ...event, settlement: { ...settlement, blockHash: null } })).to.not.have.property(
      'blockHash',
    )
  })
})
