import type { EvmAddress as Address } from '../model/evm-hex.js'
import type { KeyFees } from '../../ports/signing-key.js'
import type { KeyReads } from '../ports/settler.js'

/** How old a balance may be before a settle's pick reads it again (in the background). */
const FRESH_MS = 2_000
/** A lone transfer's smallest gas limit: the next transaction's cost is at least this × the gas price. */
const LONE_TRANSFER_GAS = 120_000n

/**
 * One signing key's ETH against its next transaction's cost (docs/ARCHITECTURE.md §5.8): a key that cannot pay is
 * skipped by the lane picker rather than tried. The balance is read when first needed and then again in the background
 * once older than 2 s; the next transaction's cost is the last one signed (gas limit × max fee), at first a lone
 * transfer's 120 000 gas at the node's gas price.
 */
export class KeyFunds implements KeyFees {
  private balance: bigint | undefined
  private readAt = -Infinity
  private nextCost = 0n
  /** What the transactions signed since the balance was read may cost (an upper bound: gas limit × max fee). */
  private spent = 0n
  private reading: Promise<void> | undefined

  constructor(
    private readonly reads: KeyReads,
    readonly account: Address,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Reads the balance if it was never read (awaited) or is stale (in the background). */
  async refresh(): Promise<void> {
    if (this.now() - this.readAt < FRESH_MS) return
    const read = (this.reading ??= this.read().finally(() => (this.reading = undefined)))
    if (this.balance === undefined) await read
  }

  /** Whether the key can pay its next transaction, as far as is known (unknown: yes, the node will say). */
  get canPay(): boolean {
    return this.balance === undefined || this.balance >= this.nextCost
  }

  /**
   * Whether the balance covers `cost` wei (the transaction about to be sent) on top of what was signed since it was
   * read: read again unless fresh and enough. A key whose balance cannot be read is let through (the node will say).
   */
  async covers(cost: bigint): Promise<{ readonly ok: boolean; readonly balance: bigint }> {
    this.nextCost = cost
    const enough = () => this.balance === undefined || this.balance - this.spent >= cost
    if (this.now() - this.readAt >= FRESH_MS || !enough()) await this.read()
    const ok = enough()
    if (ok) this.spent += cost
    return { ok, balance: this.balance ?? 0n }
  }

  private async read(): Promise<void> {
    try {
      const [balance, gasPrice] = await Promise.all([
        this.reads.gasBalance(this.account),
        this.nextCost === 0n ? this.reads.gasPrice() : undefined,
      ])
      this.balance = balance
      this.spent = 0n
      if (gasPrice !== undefined) this.nextCost = LONE_TRANSFER_GAS * gasPrice
      this.readAt = this.now()
    } catch {
      // Unread: the node will tell when the key sends (a refusal trips its breaker).
      this.readAt = this.now()
    }
  }
}
