import type { SvmInstruction } from './svm-transaction.js'

/** SPL Token's `TransferChecked` (instruction 12): `amount` u64 and `decimals` u8, little-endian after the tag. */
export interface TransferChecked {
  readonly source: string
  readonly mint: string
  readonly destination: string
  readonly authority: string
  readonly amount: bigint
  readonly decimals: number
}

const u64 = (data: Uint8Array, at: number): bigint =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true)

/** Compute Budget's `SetComputeUnitLimit` (tag 2, u32 units), or undefined when the data is not one. */
export const computeUnitLimitOf = ({ data }: SvmInstruction): number | undefined =>
  data.length === 5 && data[0] === 2
    ? new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(1, true)
    : undefined

/** Compute Budget's `SetComputeUnitPrice` (tag 3, u64 micro-lamports per unit), or undefined. */
export const computeUnitPriceOf = ({ data }: SvmInstruction): bigint | undefined =>
  data.length === 9 && data[0] === 3 ? u64(data, 1) : undefined

/**
 * A token program's `TransferChecked` (tag 12): accounts source, mint, destination, authority (then a multisig's
 * signers, which an x402 payment never has); undefined when the instruction is not exactly one.
 */
export const transferCheckedOf = ({ accounts, data }: SvmInstruction): TransferChecked | undefined => {
  if (data.length !== 10 || data[0] !== 12 || accounts.length !== 4) return undefined
  const [source, mint, destination, authority] = accounts as [string, string, string, string]
  return { source, mint, destination, authority, amount: u64(data, 1), decimals: data[9]! }
}
