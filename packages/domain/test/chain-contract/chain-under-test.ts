import type {
  EvmAddress as Address,
  Authorization,
  BatchItem,
  Hex,
  TokenReader,
  TransferSubmitter,
} from '@x402-facilitator/domain'

/** A payment signed by a payer of its own, to a payee of its own, ready to settle. */
export interface SignedPayment extends BatchItem {
  readonly authorization: Authorization
  readonly signature: Hex
}

/** A submitter that batches through a settler (the contract's batch cases need one). */
export type BatchingSubmitter = TransferSubmitter & Required<Pick<TransferSubmitter, 'prepareBatch'>>

/**
 * What the chain contract suites run on: the real adapters on anvil, or the domain's fakes. Each suite builds one
 * before all its cases; a case that would leave the chain in a state others must not see (a nonce gap, an account that
 * stops mining) takes a fresh submitter of its own.
 */
export interface ChainUnderTest {
  readonly submitter: BatchingSubmitter
  /** The account `submitter` signs with. */
  readonly account: Address
  readonly token: TokenReader
  readonly tokenAddress: Address
  readonly chainId: bigint
  /** A payment of `value` from a new payer holding `balance` [value]. */
  readonly payment: (value: bigint, balance?: bigint) => Promise<SignedPayment>
  /** Stops mining: what is sent waits in the pool until `mineHeld`. */
  readonly holdBlocks: () => Promise<void>
  /** Mines what waits and mines at once again. */
  readonly mineHeld: () => Promise<void>
  /** A submitter of a new account with funds for gas, nothing sent yet. */
  readonly freshSubmitter: () => Promise<{ readonly submitter: TransferSubmitter; readonly account: Address }>
}

export const sampleNonce = (): Hex =>
  `0x${Array.from({ length: 32 }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('')}`
