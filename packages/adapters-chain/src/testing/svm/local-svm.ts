import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type Transaction,
} from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTokenDecoder,
} from '@solana-program/token'
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'

/** Devnet's id: the official client and facilitator accept only mainnet, devnet and testnet ids. */
export const LOCAL_SVM_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

/**
 * Transactions litesvm remembers (its default, 500, forgets older ones: their statuses turn unknown and a duplicate of
 * one would run again); a dev session or a bench sends tens of thousands.
 */
const TRANSACTION_HISTORY = 1_000_000n

/** A blockhash is accepted this many slots after the slot that issued it, as on a Solana cluster. */
export const BLOCKHASH_VALID_SLOTS = 150n
/** Slots on top of a transaction's slot before it counts `confirmed` and `finalized` (a cluster's 2/3 vote, 32 lockouts). */
const CONFIRMED_AFTER = 1n
const FINALIZED_AFTER = 32n

export type Commitment = 'processed' | 'confirmed' | 'finalized'

/** What the chain did with a transaction: executed (ok or failed, its fee paid) at a slot, or refused before. */
export type Execution =
  | {
      readonly _tag: 'Executed'
      readonly slot: bigint
      readonly result: TransactionMetadata | FailedTransactionMetadata
    }
  | { readonly _tag: 'Refused'; readonly reason: string }

/**
 * The real SVM in process (`litesvm`: SPL Token, Token-2022, Associated Token Account and Memo built in), with a
 * USDC-like mint (6 decimals): what dev mode and the tests run Solana payments on. Time passes as a cluster's does:
 * each slot issues a new blockhash, a blockhash expires `BLOCKHASH_VALID_SLOTS` later, and an executed transaction is
 * `processed`, then `confirmed`, then `finalized` as slots pass over it (`advance`, or a clock: `run`).
 */
export class LocalSvm {
  // The blockhash check is this class's: litesvm accepts only its latest blockhash.
  readonly svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(TRANSACTION_HISTORY)
  private readonly issuedAt = new Map<string, bigint>()
  /** Each slot's block hash: the blockhash it issued. */
  private readonly hashOfSlot = new Map<bigint, string>()
  private readonly executedAt = new Map<string, bigint>()
  private clock: NodeJS.Timeout | undefined

  private constructor(
    readonly mintAuthority: KeyPairSigner,
    readonly mint: Address,
  ) {}

  static async start(): Promise<LocalSvm> {
    const authority = await generateKeyPairSigner()
    const mint = await generateKeyPairSigner()
    const chain = new LocalSvm(authority, mint.address)
    chain.issue()
    chain.svm.airdrop(authority.address, lamports(100_000_000_000n))
    const space = BigInt(getMintSize())
    await chain.send(authority, [
      getCreateAccountInstruction({
        payer: authority,
        newAccount: mint,
        lamports: chain.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: authority.address }),
    ])
    return chain
  }

  slot(): bigint {
    return this.svm.getClock().slot
  }

  /** `slots` slots pass, each with its own blockhash. */
  advance(slots = 1n): void {
    for (let i = 0n; i < slots; i++) {
      this.svm.warpToSlot(this.slot() + 1n)
      this.svm.expireBlockhash()
      this.issue()
    }
  }

  private issue(): void {
    this.issuedAt.set(this.svm.latestBlockhash(), this.slot())
    this.hashOfSlot.set(this.slot(), this.svm.latestBlockhash())
  }

  /** The hash of the block at `slot`; undefined for a slot not passed yet. */
  blockHashAt(slot: bigint): string | undefined {
    return this.hashOfSlot.get(slot)
  }

  /** A slot every `slotMs` until `stop` (a cluster's is 400 ms). */
  run(slotMs: number): void {
    this.stop()
    this.clock = setInterval(() => this.advance(), slotMs)
    this.clock.unref()
  }

  stop(): void {
    if (this.clock !== undefined) clearInterval(this.clock)
    this.clock = undefined
  }

  /** The newest blockhash and the last block height (a slot here: none is skipped) that accepts it. */
  latestBlockhash(): { readonly blockhash: string; readonly lastValidBlockHeight: bigint } {
    const blockhash = this.svm.latestBlockhash()
    return { blockhash, lastValidBlockHeight: (this.issuedAt.get(blockhash) ?? this.slot()) + BLOCKHASH_VALID_SLOTS }
  }

  blockhashValid(blockhash: string): boolean {
    const issued = this.issuedAt.get(blockhash)
    return issued !== undefined && this.slot() - issued <= BLOCKHASH_VALID_SLOTS
  }

  /** Executes `transaction` if its blockhash is still valid, as a leader would; its fee is paid even if it fails. */
  execute(transaction: Transaction): Execution {
    if (!this.blockhashValid(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken))
      return { _tag: 'Refused', reason: 'BlockhashNotFound' }
    const result = this.svm.sendTransaction(transaction)
    const signature = getSignatureFromTransaction(transaction)
    // Refused before execution (a duplicate, a fee payer without SOL): nothing is recorded of it.
    if (this.svm.getTransaction(signature) === null) return { _tag: 'Refused', reason: result.toString() }
    if (!this.executedAt.has(signature)) this.executedAt.set(signature, this.slot())
    return { _tag: 'Executed', slot: this.executedAt.get(signature)!, result }
  }

  /** A transaction's slot and commitment, once executed; undefined before. */
  statusOf(signature: string):
    | {
        readonly slot: bigint
        readonly commitment: Commitment
        readonly confirmations: bigint
        readonly err: string | null
      }
    | undefined {
    const slot = this.executedAt.get(signature)
    const executed = this.svm.getTransaction(signature as Signature)
    if (slot === undefined || executed === null) return undefined
    const confirmations = this.slot() - slot
    const commitment =
      confirmations >= FINALIZED_AFTER ? 'finalized' : confirmations >= CONFIRMED_AFTER ? 'confirmed' : 'processed'
    const err = executed instanceof FailedTransactionMetadata ? executed.toString() : null
    return { slot, commitment, confirmations, err }
  }

  /** Signs with `feePayer` (and the instructions' signers) and executes now; a failure throws with its logs. */
  async send(feePayer: KeyPairSigner, instructions: ReadonlyArray<Instruction>): Promise<void> {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    const executed = this.execute(await signTransactionMessageWithSigners(message))
    if (executed._tag === 'Refused' || executed.result instanceof FailedTransactionMetadata)
      throw new Error(
        `local SVM transaction failed: ${executed._tag === 'Refused' ? executed.reason : executed.result.toString()}`,
      )
  }

  /**
   * An account holding SOL (for fees) and, when `tokens`, the mint in its associated token account; `account`: that
   * key's (a fresh one unless given).
   */
  async fundedAccount(tokens = 0n, sol = 1_000_000_000n, account?: KeyPairSigner): Promise<KeyPairSigner> {
    account ??= await generateKeyPairSigner()
    this.svm.airdrop(account.address, lamports(sol))
    await this.openTokenAccount(account.address)
    if (tokens > 0n) {
      const token = await this.tokenAccountOf(account.address)
      const mintTo = { mint: this.mint, token, mintAuthority: this.mintAuthority, amount: tokens, decimals: 6 }
      await this.send(this.mintAuthority, [getMintToCheckedInstruction(mintTo)])
    }
    return account
  }

  /** The exact scheme never creates the payee's token account: it must exist before a payment to it. */
  async openTokenAccount(owner: Address): Promise<void> {
    const create = { payer: this.mintAuthority, owner, mint: this.mint }
    await this.send(this.mintAuthority, [await getCreateAssociatedTokenIdempotentInstructionAsync(create)])
  }

  async tokenAccountOf(owner: Address): Promise<Address> {
    const [account] = await findAssociatedTokenPda({ mint: this.mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    return account
  }

  async tokenBalanceOf(owner: Address): Promise<bigint> {
    const account = this.svm.getAccount(await this.tokenAccountOf(owner))
    return account.exists ? getTokenDecoder().decode(account.data).amount : 0n
  }
}
