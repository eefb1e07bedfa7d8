import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { CanonicalAddress, CanonicalBytes32, UintFromString } from '../codecs/canonical.js'
import type { SettlementEvent } from '../../ports/webhook-outbox.js'
import type { ReceiptFacts } from '../../model/settlement-receipt.js'

/** The fields of an event's row a receipt states (migration 0010 added scheme, transfer method and maximum). */
const EventSettlement = t.intersection([
  t.type({
    chainId: t.string,
    asset: CanonicalAddress,
    payer: CanonicalAddress,
    payee: CanonicalAddress,
    value: UintFromString,
    maxAmount: UintFromString,
    nonce: CanonicalBytes32,
    scheme: t.keyof({ exact: null, upto: null }),
    transferMethod: t.string,
    state: t.keyof({ confirmed: null, final: null }),
    transaction: CanonicalBytes32,
    blockNumber: UintFromString,
  }),
  t.partial({ blockHash: t.union([CanonicalBytes32, t.null]) }),
])

/**
 * The receipt an event states (docs/ARCHITECTURE.md §4, §5.9): for a row it left `confirmed` or `final` with its
 * transaction and block, timed when the journal recorded it, as the lookup's receipt of that row is; none otherwise
 * (and none for an event recorded before its row carried scheme and maximum).
 */
export const receiptOfEvent = ({ settlement, createdAt }: SettlementEvent): ReceiptFacts | undefined => {
  // Most events state no receipt (a `pending` one, one per payment): told apart before a whole decode that fails.
  if (settlement.state !== 'confirmed' && settlement.state !== 'final') return undefined
  const decoded = EventSettlement.decode(settlement)
  if (E.isLeft(decoded)) return undefined
  const { chainId, asset, payer, payee, value, maxAmount, nonce, scheme, transferMethod, state } = decoded.right
  const { transaction, blockNumber, blockHash } = decoded.right
  return {
    network: chainId,
    ...{ asset, payer, payee, value, maxAmount, nonce, scheme, transferMethod, state },
    txHash: transaction,
    blockNumber,
    ...(blockHash ? { blockHash } : {}),
    recordedAt: createdAt,
  }
}
