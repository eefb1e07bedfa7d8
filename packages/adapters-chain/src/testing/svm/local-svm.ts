import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
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
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'

/** Devnet's id: the official client and facilitator accept only mainnet, devnet and testnet ids. */
export const LOCAL_SVM_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

/**
 * The real SVM in process (`litesvm`: SPL Token, Token-2022, Associated Token Account and Memo built in), with a
 * USDC-like mint (6 decimals): what dev mode and the tests run Solana payments on.
 */
export class LocalSvm {
  readonly svm = new LiteSVM()

  private constructor(
    readonly mintAuthority: KeyPairSigner,
    readonly mint: Address,
  ) {}

  static async start(): Promise<LocalSvm> {
    const authority = await generateKeyPairSigner()
    const mint = await generateKeyPairSigner()
    const chain = new LocalSvm(authority, mint.address)
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

  /** Signs with `feePayer` (and the instructions' signers) and executes now; a failure throws with its logs. */
  async send(feePayer: KeyPairSigner, instructions: ReadonlyArray<Instruction>): Promise<void> {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    const result = this.svm.sendTransaction(await signTransactionMessageWithSigners(message))
    if (result instanceof FailedTransactionMetadata)
      throw new Error(`local SVM transaction failed: ${result.toString()}`)
  }

  /** An account holding SOL (for fees) and, when `tokens`, the mint in its associated token account. */
  async fundedAccount(tokens = 0n, sol = 1_000_000_000n): Promise<KeyPairSigner> {
    const account = await generateKeyPairSigner()
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
