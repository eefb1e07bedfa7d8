import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { Attempt, NewSettlement } from '@x402-facilitator/domain'
import { type JournalUnderTest, stepsOn } from './journal-under-test.js'
import { claimed, refOf, right } from './journal-samples.js'

/** Devnet's id: an SVM row's network (and its chain id). */
export const SVM_SAMPLE_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
let counter = 0
/** A distinct base58 string of `length` characters, upper and lower case both (their case is their value). */
const uniqueBase58 = (length: number): string => {
  let n = ++counter
  let tail = ''
  while (n > 0) {
    tail = BASE58[n % 58]! + tail
    n = Math.floor(n / 58)
  }
  return `Ab${'Cd'.repeat(length)}`.slice(0, length - tail.length) + tail
}
const digest = (): string => (++counter).toString(16).padStart(64, 'c')

export const svmSettlement = (overrides: Partial<NewSettlement> = {}): NewSettlement => ({
  network: SVM_SAMPLE_NETWORK,
  asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  payer: uniqueBase58(44),
  nonce: digest(),
  payee: uniqueBase58(43),
  value: 1_000n,
  signature: 'AQID' + 'Zm9v'.repeat(40),
  requirements: { scheme: 'exact', amount: '1000', maxTimeoutSeconds: 60 },
  owner: 'FeePayer1111111111111111111111111111111111',
  ...overrides,
})
const svmAttempt = (): Attempt => ({
  txHash: uniqueBase58(88),
  raw: 'AgAB' + 'YmFy'.repeat(60) + 'YQ==',
  sentAt: new Date('2025-01-02T03:04:05.000Z'),
})

/**
 * An SVM row (docs/ARCHITECTURE.md §1): base58 addresses and signatures, a hex message digest as its nonce, base64
 * transactions, kept exactly as given (their case is their value) and found again by them.
 */
export const svmRowsContract = (current: () => JournalUnderTest): void => {
  const journal = () => current().svmJournal ?? current().journal

  describe("a Solana payment's rows", () => {
    it('claims, records and mines an SVM row, keeping every spelling as given; its signature finds it', async () => {
      const claim = svmSettlement()
      const settlement = claimed(await right(journal().claim(claim)))
      expect(settlement).to.deep.include({
        payer: claim.payer,
        payee: claim.payee,
        owner: claim.owner,
        nonce: claim.nonce,
      })
      const sent = svmAttempt()
      expect(await right(journal().markSubmitted(refOf(settlement), sent))).to.equal('applied')
      const receipt = { txHash: sent.txHash, blockNumber: 440_208_123n, gasUsed: 0n, succeeded: true }
      expect(await right(journal().markMined(refOf(settlement), receipt))).to.equal('applied')
      const row = await stepsOn(journal()).load(claim)
      expect(row).to.deep.include({ state: 'confirmed', txHash: sent.txHash, signature: claim.signature })
      expect(row.attempts).to.deep.equal([sent])
      const byHash = await right(journal().findByTxHash(sent.txHash))
      expect(O.isSome(byHash) && byHash.value.id).to.equal(settlement.id)
      expect(O.isNone(await right(journal().findByTxHash(sent.txHash.toLowerCase())))).to.equal(true)
    })

    it('two payers whose base58 differs only in case are two payers', async () => {
      const payer = uniqueBase58(44)
      const nonce = digest()
      const first = claimed(await right(journal().claim(svmSettlement({ payer, nonce }))))
      const other = claimed(await right(journal().claim(svmSettlement({ payer: `a${payer.slice(1)}`, nonce }))))
      expect(other.id).not.to.equal(first.id)
    })
  })
}
