import type { Address, Attempt, Bytes32, Hex, Settlement, SettlementState } from '@x402-facilitator/domain'

/** The attempts of the row's current claim, oldest first, as one JSON column (amounts as text: JSON numbers lose digits). */
export const attemptsColumn = (alias: string): string => `(
  select coalesce(json_agg(json_build_object(
    'tx_hash', a.tx_hash,
    'raw', a.raw,
    'account_nonce', a.account_nonce::text,
    'max_fee_per_gas', a.max_fee_per_gas::text,
    'max_priority_fee_per_gas', a.max_priority_fee_per_gas::text,
    'sent_at', a.sent_at
  ) order by a.id), '[]'::json)
  from settlement_attempts a
  where a.settlement_id = ${alias}.id and a.generation = ${alias}.generation
) as attempts`

export const settlementColumns = (alias: string): string => `${alias}.*, ${attemptsColumn(alias)}`

interface AttemptJson {
  readonly tx_hash: string
  readonly raw: string
  readonly account_nonce: string
  readonly max_fee_per_gas: string
  readonly max_priority_fee_per_gas: string
  readonly sent_at: string
}

/** As node-postgres returns it: numeric and bigint as strings, timestamptz as Date. */
export interface SettlementRow {
  readonly id: string
  readonly network: string
  readonly asset: string
  readonly payer: string
  readonly nonce: string
  readonly payee: string
  readonly value: string
  readonly valid_after: string
  readonly valid_before: string
  readonly signature: string
  readonly state: SettlementState
  readonly generation: number
  readonly owner: string
  readonly idempotency_key: string | null
  readonly request_hash: string | null
  readonly tx_hash: string | null
  readonly block_number: string | null
  readonly gas_used: string | null
  readonly error: string | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly attempts: ReadonlyArray<AttemptJson>
}

const toAttempt = (a: AttemptJson): Attempt => ({
  txHash: a.tx_hash as Hex,
  raw: a.raw as Hex,
  accountNonce: BigInt(a.account_nonce),
  maxFeePerGas: BigInt(a.max_fee_per_gas),
  maxPriorityFeePerGas: BigInt(a.max_priority_fee_per_gas),
  sentAt: new Date(a.sent_at),
})

export const toSettlement = (row: SettlementRow): Settlement => ({
  id: row.id,
  generation: row.generation,
  state: row.state,
  network: row.network,
  asset: row.asset as Address,
  payer: row.payer as Address,
  nonce: row.nonce as Bytes32,
  payee: row.payee as Address,
  value: BigInt(row.value),
  validAfter: BigInt(row.valid_after),
  validBefore: BigInt(row.valid_before),
  signature: row.signature as Hex,
  owner: row.owner as Address,
  attempts: row.attempts.map(toAttempt),
  ...(row.tx_hash === null ? {} : { txHash: row.tx_hash as Hex }),
  ...(row.block_number === null ? {} : { blockNumber: BigInt(row.block_number) }),
  ...(row.gas_used === null ? {} : { gasUsed: BigInt(row.gas_used) }),
  ...(row.error === null ? {} : { error: row.error }),
  ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
  ...(row.request_hash === null ? {} : { requestHash: row.request_hash }),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})
