import * as t from 'io-ts'
import {
  SettlementStateCodec,
  UintFromString,
  type Attempt,
  type OwnerRows,
  type RecordedBlock,
  type Settlement,
} from '@x402-facilitator/domain'
import { Permit2Json, permit2Terms } from './permit2-terms.js'
import { Address, BlockHash, Bytes, Nonce, TxHash } from './stored-spellings.js'
import { decoder } from './row-decoder.js'

const isDate = (u: unknown): u is Date => u instanceof Date && !Number.isNaN(u.getTime())

/** A timestamptz column, as node-postgres hands it over. */
const PgTimestamp = new t.Type<Date, Date, unknown>(
  'a timestamp',
  isDate,
  (u, c) => (isDate(u) ? t.success(u) : t.failure(u, c)),
  (date) => date,
)

/** A timestamptz inside a JSON column: its ISO text. */
const JsonTimestamp = new t.Type<Date, string, unknown>(
  'an ISO timestamp',
  isDate,
  (u, c) => {
    const date = typeof u === 'string' ? new Date(u) : undefined
    return date !== undefined && isDate(date) ? t.success(date) : t.failure(u, c)
  },
  (date) => date.toISOString(),
)

/** A nullable column (cheaper than a union: no failure is built for a null). */
const orNull = <A, O>(codec: t.Type<A, O, unknown>) =>
  new t.Type<A | null, O | null, unknown>(
    `${codec.name} or null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  )

/** One element of the `attempts` JSON column (amounts as text). */
const AttemptJson = t.type({
  tx_hash: TxHash,
  raw: Bytes,
  // The EVM's; another chain family's attempts have none (migration 0015).
  account_nonce: orNull(UintFromString),
  max_fee_per_gas: orNull(UintFromString),
  max_priority_fee_per_gas: orNull(UintFromString),
  sent_at: JsonTimestamp,
  batch_index: orNull(t.number),
})

/** The columns read from `settlements` (numeric and bigint arrive as strings) and the current claim's attempts. */
const settlementColumns = {
  id: t.string,
  network: t.string,
  asset: Address,
  payer: Address,
  nonce: Nonce,
  payee: Address,
  value: UintFromString,
  valid_after: UintFromString,
  valid_before: UintFromString,
  signature: Bytes,
  state: SettlementStateCodec,
  generation: t.number,
  owner: Address,
  idempotency_key: orNull(t.string),
  request_hash: orNull(t.string),
  caller: orNull(t.string),
  success_answered_by: orNull(t.string),
  tx_hash: orNull(TxHash),
  block_number: orNull(UintFromString),
  block_hash: orNull(BlockHash),
  payment_log_index: orNull(t.number),
  gas_used: orNull(UintFromString),
  error: orNull(t.string),
  reorged_at: orNull(PgTimestamp),
  refusals: t.number,
  first_refused_at: orNull(PgTimestamp),
  watch_ended_at: orNull(PgTimestamp),
  permit2: orNull(Permit2Json),
  created_at: PgTimestamp,
  updated_at: PgTimestamp,
  attempts: t.readonlyArray(AttemptJson),
}

const SettlementRow = t.type(settlementColumns)
/** A row of a claim statement: the settlement, whether it claimed it, and whether it holds what the claim needs. */
const ClaimRow = t.type({ ...settlementColumns, claimed: t.boolean, held: t.boolean })
const IdRow = t.type({ id: t.string })

const toAttempt = (a: t.TypeOf<typeof AttemptJson>): Attempt => ({
  txHash: a.tx_hash,
  raw: a.raw,
  ...(a.account_nonce === null ? {} : { accountNonce: a.account_nonce }),
  ...(a.max_fee_per_gas === null ? {} : { maxFeePerGas: a.max_fee_per_gas }),
  ...(a.max_priority_fee_per_gas === null ? {} : { maxPriorityFeePerGas: a.max_priority_fee_per_gas }),
  sentAt: a.sent_at,
  ...(a.batch_index === null ? {} : { batchIndex: a.batch_index }),
})

// A NULL column leaves its field out (rather than `undefined`): deep equality and `in` tell the two apart.
const toSettlement = (row: t.TypeOf<typeof SettlementRow>): Settlement => ({
  id: row.id,
  generation: row.generation,
  state: row.state,
  network: row.network,
  asset: row.asset,
  payer: row.payer,
  nonce: row.nonce,
  payee: row.payee,
  value: row.value,
  validAfter: row.valid_after,
  validBefore: row.valid_before,
  signature: row.signature,
  owner: row.owner,
  ...(row.permit2 === null ? {} : { permit2: permit2Terms(row.permit2) }),
  attempts: row.attempts.map(toAttempt),
  ...(row.tx_hash === null ? {} : { txHash: row.tx_hash }),
  ...(row.block_number === null ? {} : { blockNumber: row.block_number }),
  ...(row.block_hash === null ? {} : { blockHash: row.block_hash }),
  ...(row.payment_log_index === null ? {} : { paymentLogIndex: row.payment_log_index }),
  ...(row.gas_used === null ? {} : { gasUsed: row.gas_used }),
  ...(row.error === null ? {} : { error: row.error }),
  ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
  ...(row.request_hash === null ? {} : { requestHash: row.request_hash }),
  ...(row.caller === null ? {} : { caller: row.caller }),
  ...(row.success_answered_by === null ? {} : { successAnsweredBy: row.success_answered_by }),
  ...(row.reorged_at === null ? {} : { reorgedAt: row.reorged_at }),
  ...(row.refusals === 0 ? {} : { refusals: row.refusals }),
  ...(row.first_refused_at === null ? {} : { firstRefusedAt: row.first_refused_at }),
  ...(row.watch_ended_at === null ? {} : { watchEndedAt: row.watch_ended_at }),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const decodeSettlement = decoder(SettlementRow, 'a settlements row')
const decodeClaim = decoder(ClaimRow, 'a claim row')
const decodeId = decoder(IdRow, 'a returned id')
const decodeMined = decoder(t.type({ id: t.string, success_marked: t.boolean }), 'a mined row')
const decodeAccountNonce = decoder(t.type({ account_nonce: UintFromString }), 'an account nonce')
const decodeOwnerRows = decoder(t.type({ owner: Address, rows: t.number }), 'an owner and its row count')
const decodeBlock = decoder(t.type({ block_number: UintFromString, block_hash: orNull(BlockHash) }), 'a recorded block')

/** A row of `settlements` with its attempts, decoded; a bad value throws an error naming its column. */
export const decodeSettlementRow = (row: unknown): Settlement => toSettlement(decodeSettlement(row))

export interface ClaimRow {
  readonly claimed: boolean
  readonly held: boolean
  readonly settlement: Settlement
}

export const decodeClaimRow = (row: unknown): ClaimRow => {
  const decoded = decodeClaim(row)
  return { claimed: decoded.claimed, held: decoded.held, settlement: toSettlement(decoded) }
}

/** The ids a guarded statement returned (`returning id`). */
export const decodeIdRow = (row: unknown): string => decodeId(row).id

/** A row `markMined` moved, and whether its success mark is the answer id it was given. */
export const decodeMinedRow = (row: unknown): { readonly id: string; readonly successMarked: boolean } => {
  const decoded = decodeMined(row)
  return { id: decoded.id, successMarked: decoded.success_marked }
}

/** A block the finality watcher checks (`blocksToWatch`). */
export const decodeRecordedBlockRow = (row: unknown): RecordedBlock => {
  const decoded = decodeBlock(row)
  return decoded.block_hash === null
    ? { blockNumber: decoded.block_number }
    : { blockNumber: decoded.block_number, blockHash: decoded.block_hash }
}

/** An owner with rows to follow (`ownersWithOpenRows`). */
export const decodeOwnerRowsRow = (row: unknown): OwnerRows => decodeOwnerRows(row)

/** An attempt's account nonce (`accountNoncesInFlight`). */
export const decodeAccountNonceRow = (row: unknown): bigint => decodeAccountNonce(row).account_nonce
