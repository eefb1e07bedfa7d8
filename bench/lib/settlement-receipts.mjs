// The receipts behind a settle phase's answers: each answered transaction mined, from the facilitator, either straight
// to the token (one payment: its hash answers no other) or to the batch settler (a batch: its payments' answers share
// the hash), carrying the payment's own Transfer and AuthorizationUsed from the token and, in a batch, its successful
// ItemSettled; and the gas those transactions used.
import { batchSettlerAbi } from '@x402-facilitator/adapters-chain'
import { decodeEventLog, keccak256, toBytes } from 'viem'
import { word, TRANSFER_TOPIC, AUTHORIZATION_USED_TOPIC } from './payments.mjs'

const ITEM_SETTLED_TOPIC = keccak256(toBytes('ItemSettled(uint256,address,bytes32,bool,bytes)'))

/** A settler transaction's ItemSettled events, in log order: { key (`payer:nonce`), index, success }. */
const itemsOf = (receipt, settler) =>
  receipt.logs
    .filter((l) => l.address.toLowerCase() === settler && l.topics[0] === ITEM_SETTLED_TOPIC)
    .map((l) => {
      const { args } = decodeEventLog({ abi: batchSettlerAbi, data: l.data, topics: l.topics })
      return {
        key: `${args.authorizer.toLowerCase()}:${args.nonce.toLowerCase()}`,
        index: Number(args.index),
        success: args.success,
      }
    })

/** The payment's own Transfer and AuthorizationUsed, both emitted by the token. */
const carriesPayment = (receipt, token, s, payTo) => {
  const fromToken = receipt.logs.filter((l) => l.address.toLowerCase() === token)
  return (
    fromToken.some(
      (l) =>
        l.topics[0] === TRANSFER_TOPIC &&
        l.topics[1] === word(s.payer) &&
        l.topics[2] === word(payTo) &&
        BigInt(l.data) === s.value,
    ) &&
    fromToken.some(
      (l) => l.topics[0] === AUTHORIZATION_USED_TOPIC && l.topics[1] === word(s.payer) && l.topics[2] === s.nonce,
    )
  )
}

/**
 * `signed[i]` was answered `answers[i]`. Without `settler` (the lone phase) every payment has a transaction of its own
 * to the token; with it, a payment's transaction is a lone one to the token or a settler batch. { problems, hashes
 * (answered, lower-case), itemIndex (per payment: its index in its batch, null for a lone transaction, undefined when
 * its receipt does not say), transactions (the distinct receipts' statistics and gas) }
 */
export const checkReceipts = async ({ rpc, token, facilitator, settler, signed, answers, payTo }) => {
  const problems = []
  const hashes = answers.map((a) => a?.body?.txHash?.toLowerCase())
  const missing = hashes.filter((h) => !h).length
  if (missing > 0) problems.push(`${missing} answers without a transaction hash`)
  const answersOf = new Map()
  for (const h of hashes) if (h) answersOf.set(h, (answersOf.get(h) ?? 0) + 1)
  const distinct = [...answersOf.keys()]
  const fetched = await rpc.batch(distinct.map((h) => ['eth_getTransactionReceipt', [h]]))
  const receipts = new Map(distinct.map((h, k) => [h, fetched[k]]))
  const batches = new Map()
  if (settler) for (const [h, r] of receipts) if (r?.to?.toLowerCase() === settler) batches.set(h, itemsOf(r, settler))

  const itemIndex = new Array(signed.length)
  let wrong = 0
  signed.forEach((s, i) => {
    const r = hashes[i] && receipts.get(hashes[i])
    const mined =
      r &&
      r.status === '0x1' &&
      r.from.toLowerCase() === facilitator &&
      Number(BigInt(r.blockNumber)) === Number(answers[i].body.blockNumber)
    let routed = false
    if (mined && r.to?.toLowerCase() === token) {
      itemIndex[i] = null
      routed = answersOf.get(hashes[i]) === 1
    } else if (mined && batches.has(hashes[i])) {
      const item = batches.get(hashes[i]).find((it) => it.key === `${s.payer}:${s.nonce}`)
      itemIndex[i] = item?.index
      routed = item?.success === true
    }
    if (!(mined && routed && carriesPayment(r, token, s, payTo))) wrong++
  })
  const where = settler
    ? `the token (its own) or the settler (its successful ItemSettled)`
    : 'the token (its own transaction)'
  if (wrong > 0)
    problems.push(
      `${wrong} answered transactions missing, reverted, not from the facilitator to ${where}, or without the payment's Transfer and AuthorizationUsed`,
    )
  // A batch settles the payments whose answers name it and nothing else: one successful item each.
  const oddBatches = [...batches].filter(
    ([h, items]) =>
      items.length !== answersOf.get(h) ||
      new Set(items.map((it) => it.key)).size !== items.length ||
      items.some((it) => !it.success),
  ).length
  if (oddBatches > 0)
    problems.push(
      `${oddBatches} batch transactions whose items are not exactly the payments answered with them, each successful`,
    )
  const otherwise = distinct.filter((h) => !batches.has(h) && receipts.get(h)?.to?.toLowerCase() !== token).length
  if (otherwise > 0) problems.push(`${otherwise} answered transactions sent neither to the token nor to the settler`)
  return { problems, hashes, itemIndex, transactions: transactionFigures(signed.length, answersOf, receipts, batches) }
}

/** The distinct transactions' gas (what gas per transfer is made of) and how the payments were grouped. */
const transactionFigures = (payments, answersOf, receipts, batches) => {
  const gasUsed = [...receipts.values()].reduce((sum, r) => sum + (r ? BigInt(r.gasUsed) : 0n), 0n)
  const batchSizes = [...batches.keys()].map((h) => answersOf.get(h))
  const inBatches = batchSizes.reduce((a, b) => a + b, 0)
  return {
    count: receipts.size,
    batches: batches.size,
    lone: receipts.size - batches.size,
    gasUsed: gasUsed.toString(),
    gasPerTransfer: payments > 0 ? Math.round(Number(gasUsed) / payments) : undefined,
    paymentsPerTransaction: receipts.size > 0 ? payments / receipts.size : undefined,
    meanBatchSize: batches.size > 0 ? inBatches / batches.size : undefined,
    largestBatch: batchSizes.length > 0 ? Math.max(...batchSizes) : undefined,
    paymentsInBatches: inBatches,
  }
}
