import type * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainUnavailable } from '../../model/failures.js'
import type { SvmTransaction } from '../model/svm-transaction.js'

/** What the chain says of a transaction it has seen (`getSignatureStatuses`). */
export interface SvmStatus {
  readonly slot: bigint
  readonly commitment: 'processed' | 'confirmed' | 'finalized'
  /** Why it failed on chain (its fee paid all the same); null: it succeeded. */
  readonly err: string | null
}

/** A Solana cluster as the SVM mechanism reads and writes it (standard JSON-RPC; the adapter: `@solana/kit`). */
export interface SvmChain {
  /** Runs the transaction without its fee payer's signature: undefined if it would succeed, else why not. */
  readonly simulate: (wire: string) => TE.TaskEither<ChainUnavailable, string | undefined>
  /** Whether a block may still take the transaction (its blockhash not expired, as the cluster finalized it). */
  readonly landable: (wire: string) => TE.TaskEither<ChainUnavailable, boolean>
  /** A token account's balance; undefined when the account does not exist. */
  readonly tokenBalance: (account: string) => TE.TaskEither<ChainUnavailable, bigint | undefined>
  /** A key's SOL, in lamports. */
  readonly lamports: (account: string) => TE.TaskEither<ChainUnavailable, bigint>
  /** Sends a fully signed transaction (base64) without preflight: its status tells what became of it. */
  readonly send: (wire: string) => TE.TaskEither<ChainUnavailable, void>
  /** The hash of the block at `slot` (base58): what a row records of where its transaction landed (§5.6). */
  readonly blockHashAt: (slot: bigint) => TE.TaskEither<ChainUnavailable, string>
  /** The status of each transaction the cluster has seen, searching its history; absent ones are unknown to it. */
  readonly statuses: (
    signatures: ReadonlyArray<string>,
  ) => TE.TaskEither<ChainUnavailable, ReadonlyMap<string, SvmStatus>>
}

/** One fee payer key (ed25519): signs a payer's transaction as its fee payer. */
export interface SvmFeePayer {
  readonly address: string
  /** The transaction with our signature added (base64), and its id: our signature (base58), the cluster's name for it. */
  readonly sign: (
    wire: string,
  ) => TE.TaskEither<ChainUnavailable, { readonly signed: string; readonly signature: string }>
}

/** Reading payments' bytes, which only the adapter can (base64 → message; token account addresses). */
export interface SvmCodec {
  readonly read: (wire: string) => Promise<E.Either<string, SvmTransaction>>
  /** `owner`'s associated token account for `mint`, under each token program. */
  readonly tokenAccountsOf: (owner: string, mint: string) => Promise<(tokenProgram: string) => string>
}
