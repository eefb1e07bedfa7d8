import * as E from 'fp-ts/lib/Either.js'
import type { TransferReceipt } from '@x402-facilitator/domain'

/** A payer's signed promise to pay: its `id` is its identity, as an EIP-3009 nonce is the EVM's. */
export interface Voucher {
  readonly id: string
  readonly from: string
  readonly to: string
  readonly value: bigint
  readonly signature: string
}

/** The one way a voucher is signed here: its holder's name over its fields (a stand-in for a real scheme). */
export const signVoucher = (voucher: Omit<Voucher, 'signature'>): Voucher => ({
  ...voucher,
  signature: `signed:${voucher.from}:${voucher.id}:${voucher.to}:${voucher.value}`,
})

export const isSignedByPayer = (voucher: Voucher): boolean => signVoucher(voucher).signature === voucher.signature

interface LedgerEntry {
  readonly txId: string
  readonly voucher: Voucher
  readonly block: bigint
}

/**
 * A second chain family's chain, in memory: accounts named `ledger:<name>`, one block per transfer, each voucher
 * spendable once, transaction ids `ledgertx:<n>`. Nothing about it is EVM.
 */
export class Ledger {
  private readonly balances = new Map<string, bigint>()
  private readonly entries = new Map<string, LedgerEntry>()
  private readonly spentBy = new Map<string, string>()
  private height = 0n
  private transfers = 0
  private readonly listeners: Array<(entry: LedgerEntry) => void> = []

  fund(account: string, amount: bigint): void {
    this.balances.set(account, this.balanceOf(account) + amount)
  }

  balanceOf(account: string): bigint {
    return this.balances.get(account) ?? 0n
  }

  get transferCount(): number {
    return this.transfers
  }

  /** The transaction that spent the voucher, if one did. */
  spentIn(voucherId: string): string | undefined {
    return this.spentBy.get(voucherId)
  }

  /** Moves the voucher's value once; a spent voucher or a short balance is refused, and nothing moves. */
  send(txId: string, voucher: Voucher): E.Either<string, TransferReceipt> {
    if (this.spentBy.has(voucher.id)) return E.left(`voucher ${voucher.id} already spent`)
    if (this.balanceOf(voucher.from) < voucher.value) return E.left(`${voucher.from} holds too little`)
    this.balances.set(voucher.from, this.balanceOf(voucher.from) - voucher.value)
    this.balances.set(voucher.to, this.balanceOf(voucher.to) + voucher.value)
    const entry = { txId, voucher, block: ++this.height }
    this.entries.set(txId, entry)
    this.spentBy.set(voucher.id, txId)
    this.transfers++
    this.listeners.forEach((listener) => listener(entry))
    return E.right(this.receiptOf([txId])!)
  }

  /** The receipt of whichever of these transactions is on the ledger. */
  receiptOf(txIds: ReadonlyArray<string>): TransferReceipt | undefined {
    const entry = txIds.map((id) => this.entries.get(id)).find((found) => found !== undefined)
    if (entry === undefined) return undefined
    return {
      txHash: entry.txId,
      blockNumber: entry.block,
      blockHash: `ledgerblock:${entry.block}`,
      gasUsed: 0n,
      succeeded: true,
    }
  }

  /** Resolves once a transfer of `voucherId` is on the ledger. */
  transferred(voucherId: string): Promise<void> {
    if (this.spentBy.has(voucherId)) return Promise.resolve()
    return new Promise((resolve) => this.listeners.push((entry) => entry.voucher.id === voucherId && resolve()))
  }
}
