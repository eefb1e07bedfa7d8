// The checks of the permit2 settle phase, as bench/lib/checks.mjs does for EIP-3009: every answered settlement
// on-chain and in the journal, and exactly once whatever the answers said. Permit2 emits no event of its own: a payment
// is proved by its own transaction to the exact proxy carrying the token's Transfer(payer, payee, value), and its
// nonce by Permit2's nonceBitmap bit.
import { permit2Abi } from '@x402-facilitator/adapters-chain/testing'
import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import { encodeFunctionData } from 'viem'
import { balances, transfersTo } from './checks.mjs'
import { TRANSFER_TOPIC, word } from './payments.mjs'

/** How many of `signed`'s Permit2 nonces are not marked used in Permit2's bitmap. */
const unusedNonces = async (rpc, signed) => {
  const calls = signed.map((s) => [
    'eth_call',
    [
      {
        to: CANONICAL_PERMIT2_CONTRACTS.permit2,
        data: encodeFunctionData({
          abi: permit2Abi,
          functionName: 'nonceBitmap',
          args: [s.payer, BigInt(s.nonce) >> 8n],
        }),
      },
      'latest',
    ],
  ])
  const words = await rpc.batch(calls)
  return signed.filter((s, i) => ((BigInt(words[i]) >> (BigInt(s.nonce) & 0xffn)) & 1n) !== 1n).length
}

/**
 * `signed[i]` (bench/lib/permit2-payments.mjs) was answered `answers[i]` (x402 v2: `transaction`,
 * `extra.blockNumber`); `fromBlock` and `balancesBefore` were read before the phase began. As checkSettlements.
 */
export const checkPermit2Settlements = async ({
  rpc,
  db,
  token,
  facilitator,
  signed,
  answers,
  payTo,
  fromBlock,
  balancesBefore,
}) => {
  const problems = []
  const proxy = CANONICAL_PERMIT2_CONTRACTS.exactProxy
  const hashes = answers.map((a) => a?.body?.transaction?.toLowerCase() || undefined)
  const missing = hashes.filter((h) => !h).length
  if (missing > 0) problems.push(`${missing} answers without a transaction hash`)
  const distinct = [...new Set(hashes.filter(Boolean))]
  if (distinct.length !== hashes.length - missing) problems.push('a transaction answers more than one payment')
  const fetched = await rpc.batch(distinct.map((h) => ['eth_getTransactionReceipt', [h]]))
  const receipts = new Map(distinct.map((h, k) => [h, fetched[k]]))
  let wrong = 0
  signed.forEach((s, i) => {
    const r = hashes[i] && receipts.get(hashes[i])
    const ok =
      r &&
      r.status === '0x1' &&
      r.from.toLowerCase() === facilitator &&
      r.to?.toLowerCase() === proxy &&
      Number(BigInt(r.blockNumber)) === Number(answers[i].body.extra?.blockNumber) &&
      r.logs.some(
        (l) =>
          l.address.toLowerCase() === token &&
          l.topics[0] === TRANSFER_TOPIC &&
          l.topics[1] === word(s.payer) &&
          l.topics[2] === word(payTo) &&
          BigInt(l.data) === s.value,
      )
    if (!ok) wrong++
  })
  if (wrong > 0)
    problems.push(
      `${wrong} answered transactions missing, reverted, not from the facilitator to the exact proxy in the answered ` +
        "block, or without the payment's Transfer",
    )

  // Exactly once on-chain: every transfer to this run's (fresh) payee since the start, and every nonce used.
  const toPayee = await transfersTo(rpc, token, payTo, fromBlock)
  if (toPayee.length !== signed.length)
    problems.push(`${toPayee.length} transfers to the payee on-chain, expected ${signed.length}`)
  const unused = await unusedNonces(rpc, signed)
  if (unused > 0) problems.push(`${unused} Permit2 nonces not used on-chain`)

  const payers = [...new Set(signed.map((s) => s.payer))]
  const after = await balances(rpc, token, [...payers, payTo])
  const spent = new Map()
  for (const s of signed) spent.set(s.payer, (spent.get(s.payer) ?? 0n) + s.value)
  for (const p of payers)
    if (balancesBefore.get(p) - after.get(p) !== spent.get(p))
      problems.push(`payer ${p} balance moved by ${balancesBefore.get(p) - after.get(p)}, expected ${spent.get(p)}`)
  const total = signed.reduce((sum, s) => sum + s.value, 0n)
  if (after.get(payTo) !== total) problems.push(`payee holds ${after.get(payTo)}, expected ${total}`)

  // The journal: one row per payment, confirmed (or final), naming the answered transaction, with one attempt.
  const settled = (state) => state === 'confirmed' || state === 'final'
  const { rows } = await db.query(
    `select s.nonce, s.payer, s.state, s.tx_hash,
       (select count(*)::int from settlement_attempts a where a.settlement_id = s.id) as attempts
     from settlements s where s.payee = $1`,
    [payTo],
  )
  const byNonce = new Map(rows.map((r) => [`${r.payer}:${r.nonce}`, r]))
  const unjournalled = signed.filter((s, i) => {
    const r = byNonce.get(`${s.payer}:${s.nonce}`)
    return !(r && settled(r.state) && r.tx_hash === hashes[i] && r.attempts === 1)
  }).length
  if (rows.length !== signed.length || byNonce.size !== rows.length)
    problems.push(`${rows.length} journal rows (${byNonce.size} nonces) for the payee, expected ${signed.length}`)
  if (unjournalled > 0)
    problems.push(`${unjournalled} payments without a confirmed journal row naming their transaction (one attempt)`)
  const transferTx = new Set(toPayee.map((l) => l.transactionHash.toLowerCase()))
  const rowsOk = rows.length === signed.length && rows.every((r) => settled(r.state) && transferTx.has(r.tx_hash))
  const gasUsed = [...receipts.values()].reduce((sum, r) => sum + (r ? BigInt(r.gasUsed) : 0n), 0n)
  return {
    ok: problems.length === 0,
    exactlyOnce:
      unused === 0 && toPayee.length === signed.length && rowsOk && !problems.some((p) => p.startsWith('paye')),
    problems,
    receipts: receipts.size,
    journalRows: rows.length,
    transactions: {
      count: receipts.size,
      gasUsed: gasUsed.toString(),
      gasPerTransfer: signed.length > 0 ? Math.round(Number(gasUsed) / signed.length) : undefined,
    },
  }
}
