import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  COMPUTE_BUDGET_PROGRAM,
  LIGHTHOUSE_PROGRAM,
  MEMO_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  svmPaymentRules,
  type SvmInstruction,
  type SvmPaymentTerms,
  type SvmTransaction,
} from '@x402-facilitator/domain'

/**
 * The `exact` SVM rules that need no chain (docs/ARCHITECTURE.md §3), over transactions as the adapter decodes them:
 * the layout @x402/svm 2.27's client builds (compute unit limit, price, one TransferChecked, a memo), and each way
 * out of it. Addresses are base58 strings the rules only compare.
 */
const FEE_PAYER = 'FeePayer1111111111111111111111111111111111'
const OTHER_KEY = 'FeePayer2222222222222222222222222222222222'
const PAYER = 'Payer11111111111111111111111111111111111111'
const SOURCE = 'PayerAta1111111111111111111111111111111111'
const MINT = 'Mint111111111111111111111111111111111111111'
const PAY_TO_ATA = 'PayToAta1111111111111111111111111111111111'
const PAY_TO_ATA_2022 = 'PayToAta2022222222222222222222222222222222'

/** Instruction data: bytes, and little-endian u32 and u64 fields (the programs' layout). */
const bytes = (...parts: ReadonlyArray<number | { u32: number } | { u64: bigint }>): Uint8Array => {
  const out: number[] = []
  for (const part of parts) {
    if (typeof part === 'number') {
      out.push(part)
      continue
    }
    const field = new DataView(new ArrayBuffer('u32' in part ? 4 : 8))
    if ('u32' in part) field.setUint32(0, part.u32, true)
    else field.setBigUint64(0, part.u64, true)
    out.push(...new Uint8Array(field.buffer))
  }
  return new Uint8Array(out)
}
const limit = (units = 20_000): SvmInstruction => ({
  programAddress: COMPUTE_BUDGET_PROGRAM,
  accounts: [],
  data: bytes(2, { u32: units }),
})
const price = (microLamports = 1n): SvmInstruction => ({
  programAddress: COMPUTE_BUDGET_PROGRAM,
  accounts: [],
  data: bytes(3, { u64: microLamports }),
})
const transfer = (o: { program?: string; accounts?: string[]; amount?: bigint } = {}): SvmInstruction => ({
  programAddress: o.program ?? TOKEN_PROGRAM,
  accounts: o.accounts ?? [SOURCE, MINT, PAY_TO_ATA, PAYER],
  data: bytes(12, { u64: o.amount ?? 1_000_000n }, 6),
})
const memo = (text = 'a1b2'): SvmInstruction => ({
  programAddress: MEMO_PROGRAM,
  accounts: [],
  data: new TextEncoder().encode(text),
})

const tx = (o: Partial<SvmTransaction> = {}): SvmTransaction => ({
  feePayer: FEE_PAYER,
  signers: [FEE_PAYER, PAYER],
  messageId: 'a1'.repeat(32),
  validSignatures: new Set([PAYER]),
  instructions: [limit(), price(), transfer(), memo()],
  usesLookupTables: false,
  ...o,
})
const terms = (o: Partial<SvmPaymentTerms> = {}): SvmPaymentTerms => ({
  feePayer: FEE_PAYER,
  feePayers: new Set([FEE_PAYER, OTHER_KEY]),
  asset: MINT,
  amount: 1_000_000n,
  payToAccountOf: (program) => (program === TOKEN_2022_PROGRAM ? PAY_TO_ATA_2022 : PAY_TO_ATA),
  ...o,
})
const failureOf = (t: SvmTransaction, r: SvmPaymentTerms = terms()) => {
  const judged = svmPaymentRules(t, r)
  return E.isLeft(judged) ? judged.left : undefined
}

describe('exact SVM payment rules (no chain)', () => {
  it("accept the official client's layout, under SPL Token and Token-2022, with or without a memo or Lighthouse", () => {
    const judged = svmPaymentRules(tx(), terms())
    expect(E.isRight(judged) && judged.right).to.deep.include({ authority: PAYER, amount: 1_000_000n, decimals: 6 })
    const token2022 = transfer({ program: TOKEN_2022_PROGRAM, accounts: [SOURCE, MINT, PAY_TO_ATA_2022, PAYER] })
    const lighthouse = { programAddress: LIGHTHOUSE_PROGRAM, accounts: [PAYER], data: bytes(1) }
    for (const instructions of [
      [limit(), price(), token2022],
      [limit(), price(), transfer()],
      [limit(), price(), transfer(), memo(), lighthouse, lighthouse, lighthouse],
    ])
      expect(failureOf(tx({ instructions }))).to.equal(undefined)
  })

  it("refuse a fee payer that is missing, not ours, or not the transaction's", () => {
    expect(failureOf(tx(), terms({ feePayer: undefined }))).to.deep.equal({ _tag: 'SvmFeePayerMissing' })
    expect(failureOf(tx(), terms({ feePayer: PAYER }))).to.deep.equal({ _tag: 'SvmFeePayerNotOurs', feePayer: PAYER })
    expect(failureOf(tx({ feePayer: OTHER_KEY }))).to.deep.equal({
      _tag: 'SvmFeePayerMismatch',
      expected: FEE_PAYER,
      actual: OTHER_KEY,
    })
    expect(failureOf(tx({ usesLookupTables: true }))).to.deep.equal({ _tag: 'SvmLookupTables' })
  })

  it('refuse a third signer (we pay for each signature) and a payer that did not sign', () => {
    expect(failureOf(tx({ signers: [FEE_PAYER, PAYER, SOURCE] }))).to.deep.equal({
      _tag: 'SvmTooManySigners',
      signers: 3,
      max: 2,
    })
    expect(failureOf(tx({ validSignatures: new Set() }))).to.deep.equal({ _tag: 'SvmSignatureInvalid', signer: PAYER })
  })

  it('refuse any of our keys in any instruction: as the source, the authority, a memo or Lighthouse account', () => {
    const asSource = transfer({ accounts: [FEE_PAYER, MINT, PAY_TO_ATA, PAYER] })
    const asAuthority = transfer({ accounts: [SOURCE, MINT, PAY_TO_ATA, OTHER_KEY] })
    const inLighthouse = { programAddress: LIGHTHOUSE_PROGRAM, accounts: [FEE_PAYER], data: bytes(1) }
    expect(failureOf(tx({ instructions: [limit(), price(), asSource] }))).to.deep.include({ index: 2 })
    expect(failureOf(tx({ instructions: [limit(), price(), asAuthority] }))).to.deep.equal({
      _tag: 'SvmFeePayerInInstruction',
      index: 2,
      program: TOKEN_PROGRAM,
    })
    expect(failureOf(tx({ instructions: [limit(), price(), transfer(), inLighthouse] }))).to.deep.equal({
      _tag: 'SvmFeePayerInInstruction',
      index: 3,
      program: LIGHTHOUSE_PROGRAM,
    })
  })

  it('refuse fewer than 3 or more than 7 instructions, and compute budgets out of place or over their caps', () => {
    expect(failureOf(tx({ instructions: [limit(), transfer()] }))).to.deep.equal({
      _tag: 'SvmInstructionCount',
      count: 2,
    })
    expect(failureOf(tx({ instructions: [limit(), price(), transfer(), ...Array(5).fill(memo())] }))).to.deep.equal({
      _tag: 'SvmInstructionCount',
      count: 8,
    })
    expect(failureOf(tx({ instructions: [price(), limit(), transfer()] }))).to.deep.equal({
      _tag: 'SvmComputeLimitInstruction',
    })
    expect(failureOf(tx({ instructions: [limit(), memo(), transfer()] }))).to.deep.equal({
      _tag: 'SvmComputePriceInstruction',
    })
    expect(failureOf(tx({ instructions: [limit(), price(5_000_001n), transfer()] }))).to.deep.equal({
      _tag: 'SvmComputePriceTooHigh',
      microLamports: 5_000_001n,
      max: 5_000_000n,
    })
    expect(
      failureOf(tx({ instructions: [limit(400_000), price(), transfer()] }), terms({ maxComputeUnits: 200_000 })),
    ).to.deep.equal({ _tag: 'SvmComputeLimitTooHigh', units: 400_000, max: 200_000 })
  })

  it('refuse a third instruction that is not one TransferChecked of the asset to payTo for exactly the amount', () => {
    const notToken = { ...transfer(), programAddress: MEMO_PROGRAM }
    const multisig = transfer({ accounts: [SOURCE, MINT, PAY_TO_ATA, PAYER, SOURCE] })
    for (const third of [notToken, multisig])
      expect(failureOf(tx({ instructions: [limit(), price(), third] }))).to.deep.equal({
        _tag: 'SvmNoTransferInstruction',
      })
    const otherMint = transfer({ accounts: [SOURCE, PAY_TO_ATA, PAY_TO_ATA, PAYER] })
    expect(failureOf(tx({ instructions: [limit(), price(), otherMint] }))).to.deep.include({ _tag: 'SvmMintMismatch' })
    // payTo's account under the other token program is not this transfer's destination.
    const wrongProgramAccount = transfer({ program: TOKEN_2022_PROGRAM })
    expect(failureOf(tx({ instructions: [limit(), price(), wrongProgramAccount] }))).to.deep.equal({
      _tag: 'SvmRecipientMismatch',
      destination: PAY_TO_ATA,
      expected: PAY_TO_ATA_2022,
    })
    for (const amount of [999_999n, 1_000_001n])
      expect(failureOf(tx({ instructions: [limit(), price(), transfer({ amount })] }))).to.deep.equal({
        _tag: 'SvmAmountMismatch',
        amount,
        expected: 1_000_000n,
      })
  })

  it('refuse any other program after the transfer, and a memo missing, doubled or other than extra.memo', () => {
    const system = { programAddress: '11111111111111111111111111111111', accounts: [PAYER], data: bytes(2) }
    expect(failureOf(tx({ instructions: [limit(), price(), transfer(), memo(), system] }))).to.deep.equal({
      _tag: 'SvmUnknownInstruction',
      index: 4,
      program: '11111111111111111111111111111111',
    })
    const withMemo = terms({ memo: 'order-42' })
    expect(failureOf(tx({ instructions: [limit(), price(), transfer()] }), withMemo)).to.deep.equal({
      _tag: 'SvmMemoCount',
      count: 0,
    })
    expect(
      failureOf(tx({ instructions: [limit(), price(), transfer(), memo('order-42'), memo('order-42')] }), withMemo),
    ).to.deep.equal({ _tag: 'SvmMemoCount', count: 2 })
    expect(failureOf(tx({ instructions: [limit(), price(), transfer(), memo('order-43')] }), withMemo)).to.deep.equal({
      _tag: 'SvmMemoMismatch',
    })
    expect(failureOf(tx({ instructions: [limit(), price(), transfer(), memo('order-42')] }), withMemo)).to.equal(
      undefined,
    )
  })
})
