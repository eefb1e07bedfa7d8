import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type { ReceiptFacts } from '../../model/settlement-receipt.js'
import type { SettlementEvent } from '../../ports/webhook-outbox.js'
import { Base58Address, Base58Signature, MessageDigest } from '../codecs/svm-spellings.js'
import { SVM_TRANSFER_METHOD } from './svm-receipt-facts.js'

const Amount = new t.Type<bigint, string, unknown>(
  'a decimal amount',
  (u): u is bigint => typeof u === 'bigint',
  (u, c) => (typeof u === 'string' && /^[0-9]+$/.test(u) ? t.success(BigInt(u)) : t.failure(u, c)),
  (n) => n.toString(),
)

/** The fields of a Solana row's event a receipt states (migrations 0010, 0016, 0017). */
const SvmEventSettlement = t.intersection([
  t.type({
    chainId: t.string,
    asset: Base58Address,
    payer: Base58Address,
    payee: Base58Address,
    value: Amount,
    nonce: MessageDigest,
    transferMethod: t.literal(SVM_TRANSFER_METHOD),
    state: t.keyof({ confirmed: null, final: null }),
    transaction: Base58Signature,
    blockNumber: Amount,
  }),
  t.partial({ blockHash: t.union([Base58Address, t.null]) }),
])

/** The receipt a Solana row's event states, as `receiptOfEvent` does for the EVM's: confirmed or final rows only. */
export const receiptOfSvmEvent = ({ settlement, createdAt }: SettlementEvent): ReceiptFacts | undefined => {
  if (settlement.state !== 'confirmed' && settlement.state !== 'final') return undefined
  const decoded = SvmEventSettlement.decode(settlement)
  if (E.isLeft(decoded)) return undefined
  const { chainId, asset, payer, payee, value, nonce, state, transaction, blockNumber, blockHash } = decoded.right
  return {
    network: chainId,
    ...{ asset, payer, payee, value, maxAmount: value, nonce, scheme: 'exact', transferMethod: SVM_TRANSFER_METHOD },
    state,
    txHash: transaction,
    blockNumber,
    ...(blockHash ? { blockHash } : {}),
    recordedAt: createdAt,
  }
}
