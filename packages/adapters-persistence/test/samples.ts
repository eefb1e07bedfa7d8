import { randomBytes } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Address, Attempt, Hex, JournalUnavailable, NewSettlement, Settlement } from '@x402-facilitator/domain'

export const UINT256_MAX = (1n << 256n) - 1n

export const randomHex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`
export const randomAddress = (): Address => randomHex(20)

export const facilitator: Address = '0x00000000000000000000000000000000000000fa'
export const otherFacilitator: Address = '0x00000000000000000000000000000000000000fb'

export const newSettlement = (overrides: Partial<NewSettlement> = {}): NewSettlement => ({
  network: 'eip155:84532',
  asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
  payer: randomAddress(),
  nonce: randomHex(32),
  payee: randomAddress(),
  value: 1_000_000n,
  validAfter: 0n,
  validBefore: 4_102_444_800n,
  signature: randomHex(65),
  requirements: { scheme: 'exact', amount: 1_000_000n, maxTimeoutSeconds: 60 },
  owner: facilitator,
  ...overrides,
})

export const attempt = (overrides: Partial<Attempt> = {}): Attempt => ({
  txHash: randomHex(32),
  raw: randomHex(120),
  accountNonce: 7n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
  sentAt: new Date('2025-01-02T03:04:05.678Z'),
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

export const refOf = (settlement: Settlement) => ({ id: settlement.id, generation: settlement.generation })
