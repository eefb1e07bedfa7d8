import type { EvmAddress as Address, Hex, TransferReceipt, TxHash } from '@x402-facilitator/domain'

export const NOW = new Date('2026-11-22T12:00:00Z')
export const NOW_S = BigInt(NOW.getTime() / 1000)
export const TOKEN: Address = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
export const PAYER: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
export const PAYEE: Address = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
export const FACILITATOR: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
export const GOOD_SIGNATURE: Hex = `0x${'11'.repeat(64)}1b`
export const BAD_SIGNATURE: Hex = `0x${'22'.repeat(64)}1c`

/** The hash of block 42, where the fake submitter's receipts are mined. */
export const BLOCK_42: Hex = `0x${'42'.repeat(32)}`

/** What DemoUsd and Circle's USDC revert with for a transfer above the payer's balance. */
export const EXCEEDS_BALANCE_REASON = 'ERC20: transfer amount exceeds balance'

export const receiptFor = (prepared: { readonly txHash: TxHash }, succeeded: boolean): TransferReceipt => ({
  txHash: prepared.txHash,
  blockNumber: 42n,
  blockHash: BLOCK_42,
  gasUsed: 80_000n,
  succeeded,
  ...(succeeded ? {} : { revertReason: 'FiatToken: insufficient balance' }),
})
