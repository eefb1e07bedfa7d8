import {
  CanonicalAddress,
  CanonicalBytes32,
  HexBytes,
  UintFromString,
  type EvmAddress as Address,
  type Hex,
} from '@x402-facilitator/domain'
import * as t from 'io-ts'
import { decodeAnswer } from '../rpc/rpc-failure.js'

/** A log as a node writes it in a receipt: who emitted it, its topics and its data, all lower case once decoded. */
const NodeLog = t.type({ address: CanonicalAddress, topics: t.array(CanonicalBytes32), data: HexBytes }, 'a log')
export type NodeLog = t.TypeOf<typeof NodeLog>

/** A log's topics as viem's event decoders take them: the event's selector first. */
export const topicsOf = (log: NodeLog): [] | [Hex, ...Hex[]] =>
  log.topics.length === 0 ? [] : [log.topics[0]!, ...log.topics.slice(1)]

const NodeReceiptCodec = t.type(
  {
    transactionHash: CanonicalBytes32,
    blockNumber: UintFromString,
    blockHash: CanonicalBytes32,
    gasUsed: UintFromString,
    /** `0x1` succeeded; anything else did not. */
    status: t.union([t.string, t.undefined]),
    /** The contract called; null for a deployment. */
    to: t.union([CanonicalAddress, t.null, t.undefined]),
    logs: t.array(NodeLog),
  },
  'a transaction receipt',
)

/** A JSON-RPC receipt (`eth_getTransactionReceipt`, an EIP-7966 sync send), decoded once for every reader of it. */
export interface NodeReceipt {
  readonly txHash: Hex
  readonly blockNumber: bigint
  readonly blockHash: Hex
  readonly gasUsed: bigint
  readonly succeeded: boolean
  /** The contract the transaction called (lower case). */
  readonly to: Address | undefined
  readonly logs: ReadonlyArray<NodeLog>
}

/** `answer` as a receipt, or an `UndecodableAnswer` naming what is wrong with it. */
export const decodeNodeReceipt = (answer: unknown): NodeReceipt => {
  const r = decodeAnswer(NodeReceiptCodec, 'a receipt', answer)
  return {
    txHash: r.transactionHash,
    blockNumber: r.blockNumber,
    blockHash: r.blockHash,
    gasUsed: r.gasUsed,
    succeeded: r.status === '0x1',
    to: r.to ?? undefined,
    logs: r.logs,
  }
}

/** The logs `eth_getLogs` found: each one's transaction, block and topics (lower case). */
export const FoundLogs = t.array(
  t.type({
    transactionHash: CanonicalBytes32,
    blockNumber: UintFromString,
    blockHash: CanonicalBytes32,
    topics: t.array(CanonicalBytes32),
  }),
  'a list of logs',
)
