import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type {
  Address,
  EvmAddress,
  Attempt,
  ClaimRef,
  ClaimResult,
  Hex,
  JournalUnavailable,
  NewSettlement,
  Settlement,
  SettlementKey,
  TransferReceipt,
  TxHash,
} from '@x402-facilitator/domain'

export const UINT256_MAX = (1n << 256n) - 1n

let counter = 0

/** `bytes` bytes of hex, distinct on every call in this process, with letters in it (so its case can be changed). */
export const uniqueHex = (bytes: number): Hex => {
  const serial = (++counter).toString(16).padStart(8, '0')
  return `0x${'ab'.repeat(bytes - 4)}${serial}`
}
export const uniqueAddress = (): EvmAddress => uniqueHex(20)

export const facilitator: Address = '0x00000000000000000000000000000000000000fa'
export const otherFacilitator: EvmAddress = '0x00000000000000000000000000000000000000fb'

/** A new authorization to claim: a payer and nonce of its own. */
export const newSettlement = (overrides: Partial<NewSettlement> = {}): NewSettlement => ({
  network: 'eip155:84532',
  asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
  payer: uniqueAddress(),
  nonce: uniqueHex(32),
  payee: uniqueAddress(),
  value: 1_000_000n,
  validAfter: 0n,
  validBefore: 4_102_444_800n,
  signature: uniqueHex(65),
  requirements: { scheme: 'exact', amount: 1_000_000n, maxTimeoutSeconds: 60 },
  owner: facilitator,
  ...overrides,
})

/** A signed transaction of its own hash, at account nonce 7 unless told. */
/** An EVM attempt: its account nonce and fees set. */
export type SampleAttempt = Attempt & Required<Pick<Attempt, 'accountNonce' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>>

export const attempt = (overrides: Partial<Attempt> = {}): SampleAttempt => ({
  txHash: uniqueHex(32),
  raw: uniqueHex(120),
  accountNonce: 7n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
  sentAt: new Date('2025-01-02T03:04:05.678Z'),
  ...overrides,
})

export const SAMPLE_BLOCK_HASH: Hex = `0x${'b1'.repeat(32)}`

export const receipt = (txHash: TxHash, overrides: Partial<TransferReceipt> = {}): TransferReceipt => ({
  txHash,
  blockNumber: 12_345_678n,
  blockHash: SAMPLE_BLOCK_HASH,
  gasUsed: 85_000n,
  succeeded: true,
  ...overrides,
})

export const right = async <A>(te: TE.TaskEither<JournalUnavailable, A>): Promise<A> => {
  const result = await te()
  if (E.isLeft(result)) throw new Error(`expected Right, got JournalUnavailable: ${result.left.reason}`)
  return result.right
}

export const left = async <A>(te: TE.TaskEither<JournalUnavailable, A>): Promise<JournalUnavailable> => {
  const result = await te()
  if (E.isRight(result)) throw new Error('expected JournalUnavailable, got Right')
  return result.left
}

export const claimed = (result: ClaimResult): Settlement => {
  if (result._tag !== 'Claimed') throw new Error(`expected Claimed, got ${result._tag}`)
  return result.settlement
}

export const refOf = (settlement: Settlement): ClaimRef => ({ id: settlement.id, generation: settlement.generation })

export const keyOf = ({ network, asset, payer, nonce }: SettlementKey): SettlementKey => ({
  network,
  asset,
  payer,
  nonce,
})

/** Permit2's address: the nonce space of every Permit2 claim. */
export const PERMIT2: EvmAddress = '0x000000000022d473030f116ddee9f6b43ac78ba3'
export const EXACT_PROXY: EvmAddress = '0x402085c248eea27d92e8b30b2c58ed07f9e20001'

/** A new Permit2 `exact` payment to claim (its nonce Permit2's, a uint256 as bytes32): a payer and nonce of its own. */
export const newPermit2Settlement = (overrides: Partial<NewSettlement> = {}): NewSettlement =>
  newSettlement({
    nonceSpace: PERMIT2,
    permit2: { scheme: 'exact', permitted: 1_000_000n, spender: EXACT_PROXY },
    ...overrides,
  })
