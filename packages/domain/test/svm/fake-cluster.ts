import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import {
  chainUnavailable,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  TOKEN_PROGRAM,
  type SvmChain,
  type SvmCodec,
  type SvmFeePayer,
  type SvmStatus,
  type SvmTransaction,
} from '@x402-facilitator/domain'

/**
 * A Solana cluster in memory for the domain's tests: token balances, a slot that passes when told, blockhashes that
 * expire 150 slots after their slot, and transactions run once by signature. A "wire" here is the JSON of a payment
 * (`FakePayment`); the fee payer's signature is a digest of it, deterministic as ed25519's.
 */
export interface FakePayment {
  readonly id: string
  readonly payer: string
  readonly source: string
  readonly destination: string
  readonly mint: string
  readonly amount: string
  readonly feePayer: string
  /** The slot its blockhash was issued at. */
  readonly blockhashSlot: number
  readonly signedBy?: string
}

const wireOf = (payment: FakePayment): string => Buffer.from(JSON.stringify(payment)).toString('base64')
const paymentOf = (wire: string): FakePayment => JSON.parse(Buffer.from(wire, 'base64').toString('utf8')) as FakePayment

export class FakeCluster {
  slot = 1000
  readonly balances = new Map<string, bigint>()
  readonly landed = new Map<string, SvmStatus>()
  sends = 0
  /** Sends are swallowed (the leader never includes them) while true. */
  dropping = false
  down = false

  fund(account: string, amount: bigint): void {
    this.balances.set(account, (this.balances.get(account) ?? 0n) + amount)
  }

  advance(slots: number): void {
    this.slot += slots
  }

  private readonly unavailable = () => TE.left(chainUnavailable('cluster down'))

  private run(payment: FakePayment): string | null {
    const amount = BigInt(payment.amount)
    const funds = this.balances.get(payment.source) ?? 0n
    if (funds < amount) return 'InstructionError(2, Custom(1))'
    this.balances.set(payment.source, funds - amount)
    this.fund(payment.destination, amount)
    return null
  }

  private landable(payment: FakePayment): boolean {
    return this.slot - payment.blockhashSlot <= 150
  }

  readonly chain: SvmChain = {
    simulate: (wire) => {
      if (this.down) return this.unavailable()
      const payment = paymentOf(wire)
      const funds = this.balances.get(payment.source) ?? 0n
      return TE.right(funds < BigInt(payment.amount) ? 'InstructionError(2, Custom(1))' : undefined)
    },
    landable: (wire) => (this.down ? this.unavailable() : TE.right(this.landable(paymentOf(wire)))),
    tokenBalance: (account) => (this.down ? this.unavailable() : TE.right(this.balances.get(account))),
    lamports: () => TE.right(1_000_000_000n),
    blockHashAt: (slot) => TE.right(`Block${slot}`.padEnd(43, '1')),
    send: (wire) => {
      if (this.down) return this.unavailable()
      this.sends++
      const payment = paymentOf(wire)
      const signature = signatureOf(payment)
      if (this.dropping || this.landed.has(signature) || !this.landable(payment)) return TE.right(undefined)
      this.landed.set(signature, { slot: BigInt(this.slot), commitment: 'confirmed', err: this.run(payment) })
      return TE.right(undefined)
    },
    statuses: (signatures) =>
      this.down
        ? this.unavailable()
        : TE.right(new Map(signatures.flatMap((s) => (this.landed.has(s) ? [[s, this.landed.get(s)!] as const] : [])))),
  }
}

const signatureOf = (payment: FakePayment): string => `sig-${payment.feePayer}-${payment.id}`

export const fakeFeePayer = (address: string): SvmFeePayer => ({
  address,
  sign: (wire) => {
    const payment = { ...paymentOf(wire), signedBy: address }
    return TE.right({ signed: wireOf(payment), signature: signatureOf(payment) })
  },
})

let payments = 0
export const fakeWire = (o: Omit<FakePayment, 'id'>): string => wireOf({ id: `p${++payments}`, ...o })

/** Reads a fake wire as the adapter reads a real one: the exact scheme's instruction layout. */
export const fakeCodec: SvmCodec = {
  read: async (wire) => {
    let payment: FakePayment
    try {
      payment = paymentOf(wire)
    } catch {
      return E.left('is not base64 of a transaction')
    }
    const u64 = (n: bigint) => {
      const bytes = new Uint8Array(8)
      new DataView(bytes.buffer).setBigUint64(0, n, true)
      return bytes
    }
    const transaction: SvmTransaction = {
      messageId: Buffer.from(payment.id).toString('hex').padEnd(64, '0'),
      feePayer: payment.feePayer,
      signers: [payment.feePayer, payment.payer],
      validSignatures: new Set([payment.payer]),
      usesLookupTables: false,
      instructions: [
        { programAddress: COMPUTE_BUDGET_PROGRAM, accounts: [], data: Uint8Array.of(2, 0x20, 0x4e, 0, 0) },
        { programAddress: COMPUTE_BUDGET_PROGRAM, accounts: [], data: Uint8Array.of(3, 1, 0, 0, 0, 0, 0, 0, 0) },
        {
          programAddress: TOKEN_PROGRAM,
          accounts: [payment.source, payment.mint, payment.destination, payment.payer],
          data: Uint8Array.of(12, ...u64(BigInt(payment.amount)), 6),
        },
        { programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(payment.id) },
      ],
    }
    return E.right(transaction)
  },
  tokenAccountsOf: async (owner) => () => `ata-${owner}`,
}
