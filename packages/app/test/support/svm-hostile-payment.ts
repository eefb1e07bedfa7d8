import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { SvmFacilitator } from './svm-facilitator.js'

const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111')
const le = (bytes: number, n: bigint) => {
  const out = new Uint8Array(bytes)
  for (let i = 0; i < bytes; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn)
  return out
}

/** Compute Budget's `SetComputeUnitLimit` and `SetComputeUnitPrice`, as every x402 payment opens. */
export const computeBudget = (units = 20_000, microLamports = 1n): Instruction[] => [
  { programAddress: COMPUTE_BUDGET, data: Uint8Array.of(2, ...le(4, BigInt(units))) },
  { programAddress: COMPUTE_BUDGET, data: Uint8Array.of(3, ...le(8, microLamports)) },
]

/** `owner`'s associated token account of the local mint. */
export const tokenAccount = async (s: SvmFacilitator, owner: string) =>
  (await findAssociatedTokenPda({ owner: address(owner), mint: s.svm.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]

/** A `TransferChecked` of the local mint from `from`'s token account, signed by `authority` (an address: unsigned). */
export const transferChecked = async (
  s: SvmFacilitator,
  from: string,
  authority: KeyPairSigner | string,
  to: string,
  amount: bigint,
): Promise<Instruction> =>
  getTransferCheckedInstruction({
    source: await tokenAccount(s, from),
    mint: s.svm.mint,
    destination: await tokenAccount(s, to),
    authority: typeof authority === 'string' ? address(authority) : authority,
    amount,
    decimals: 6,
  })

/**
 * A payment a hostile payer builds itself (the official client builds only honest ones): our fee payer as its fee payer,
 * the payer's signature on it, ours left empty, as a real wallet would send it.
 */
export const hostilePayment = async (s: SvmFacilitator, instructions: ReadonlyArray<Instruction>): Promise<string> => {
  const { blockhash, lastValidBlockHeight } = s.svm.latestBlockhash()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(s.feePayer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message))
}
