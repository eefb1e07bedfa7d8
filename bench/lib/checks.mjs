// The checks of a settle phase: every answered settlement on-chain (receipts: bench/lib/settlement-receipts.mjs;
// events, balances) and in the journal, and exactly once whatever the answers said. The lone phase: one transaction per
// payment. The batched phase (`settler` given): a transaction may serve many payments, each its own item.
import { numberToHex } from 'viem'
import { word, TRANSFER_TOPIC, AUTHORIZATION_USED_TOPIC } from './payments.mjs'
import { checkReceipts } from './settlement-receipts.mjs'

/** The token balances of `addresses` (duplicates read once): address → bigint. */
/** The token's `Transfer` logs to `payTo` since `fromBlock`: one per payment settled to this run's fresh payee. */
export const transfersTo = (rpc, token, payTo, fromBlock) =>
  rpc.call('eth_getLogs', [
    {
      address: token,
      fromBlock: numberToHex(fromBlock),
      toBlock: 'latest',
      topics: [TRANSFER_TOPIC, null, word(payTo)],
    },
  ])

export const balances = async (rpc, token, addresses) => {
  const list = [...new Set(addresses)]
  const values = await rpc.batch(
    list.map((a) => ['eth_call', [{ to: token, data: `0x70a08231${word(a).slice(2)}` }, 'latest']]),
  )
  return new Map(list.map((a, i) => [a, BigInt(values[i])]))
}

/**
 * `signed[i]` was answered `answers[i]`; `fromBlock` and `balancesBefore` were read before the phase began;
 * `facilitator` is the answering service's signing address. { ok (no problem at all), exactlyOnce, problems,
 * replacedTransactions, receipts, journalRows, transactions (their gas and grouping) }
 */
export const checkSettlements = async ({
  rpc,
  db,
  token,
  facilitator,
  settler,
  signed,
  answers,
  payTo,
  fromBlock,
  balancesBefore,
}) => {
  const { problems, hashes, itemIndex, transactions } = await checkReceipts({
    rpc,
    token,
    facilitator,
    settler,
    signed,
    answers,
    payTo,
  })

  // Exactly once on-chain: every transfer to this run's (fresh) payee, and every use of its nonces, since the start.
  const toPayee = await transfersTo(rpc, token, payTo, fromBlock)
  if (toPayee.length !== signed.length)
    problems.push(`${toPayee.length} transfers to the payee on-chain, expected ${signed.length}`)
  const nonces = new Set(signed.map((s) => s.nonce))
  const used = await rpc.call('eth_getLogs', [
    { address: token, fromBlock: numberToHex(fromBlock), toBlock: 'latest', topics: [AUTHORIZATION_USED_TOPIC] },
  ])
  const usedCount = new Map()
  for (const l of used) if (nonces.has(l.topics[2])) usedCount.set(l.topics[2], (usedCount.get(l.topics[2]) ?? 0) + 1)
  const notOnce = [...nonces].filter((n) => usedCount.get(n) !== 1).length
  if (notOnce > 0) problems.push(`${notOnce} authorizations not used exactly once on-chain`)

  // Balances.
  const payers = [...new Set(signed.map((s) => s.payer))]
  const after = await balances(rpc, token, [...payers, payTo])
  const spent = new Map()
  for (const s of signed) spent.set(s.payer, (spent.get(s.payer) ?? 0n) + s.value)
  for (const p of payers) {
    if (balancesBefore.get(p) - after.get(p) !== spent.get(p))
      problems.push(`payer ${p} balance moved by ${balancesBefore.get(p) - after.get(p)}, expected ${spent.get(p)}`)
  }
  const total = signed.reduce((sum, s) => sum + s.value, 0n)
  if (after.get(payTo) !== total) problems.push(`payee holds ${after.get(payTo)}, expected ${total}`)

  // The journal: one row per payment, confirmed (or final: the finality watcher may already have seen its block deep
  // enough), naming the answered transaction and block, with one attempt: that transaction, at the payment's index in
  // it when it is a batch (none when it went straight to the token).
  const settled = (state) => state === 'confirmed' || state === 'final'
  const { rows } = await db.query(
    `select s.nonce, s.payer, s.state, s.tx_hash, s.block_number::text as block_number,
       a.attempts, a.attempt_tx, a.batch_index
     from settlements s
     cross join lateral (select count(*)::int as attempts, max(tx_hash) as attempt_tx, max(batch_index) as batch_index
       from settlement_attempts where settlement_id = s.id) a
     where s.payee = $1`,
    [payTo],
  )
  const byNonce = new Map(rows.map((r) => [`${r.payer}:${r.nonce}`, r]))
  let journalProblems = 0
  signed.forEach((s, i) => {
    const r = byNonce.get(`${s.payer}:${s.nonce}`)
    const named =
      r &&
      settled(r.state) &&
      r.tx_hash === hashes[i] &&
      r.attempt_tx === hashes[i] &&
      Number(r.block_number) === Number(answers[i].body.blockNumber)
    if (!named || r.attempts !== 1 || itemIndex[i] === undefined || r.batch_index !== itemIndex[i]) journalProblems++
  })
  if (rows.length !== signed.length || byNonce.size !== rows.length)
    problems.push(
      `${rows.length} journal rows (${byNonce.size} authorizations) for the payee, expected ${signed.length}`,
    )
  if (journalProblems > 0)
    problems.push(
      `${journalProblems} payments without a confirmed journal row naming their answered transaction and its item (one attempt)`,
    )
  const replaced = rows.filter((r) => r.attempts > 1).length
  // Exactly once, whatever the answers said: each authorization used once on-chain, one transfer each, balances, and a
  // confirmed journal row whose transaction is one of those transfers.
  const transferTx = new Set(toPayee.map((l) => l.transactionHash.toLowerCase()))
  const rowsOk =
    rows.length === signed.length &&
    byNonce.size === rows.length &&
    rows.every((r) => settled(r.state) && transferTx.has(r.tx_hash))
  const exactlyOnce =
    notOnce === 0 && toPayee.length === signed.length && rowsOk && !problems.some((p) => p.startsWith('paye'))
  return {
    ok: problems.length === 0,
    exactlyOnce,
    problems,
    replacedTransactions: replaced,
    receipts: transactions.count,
    journalRows: rows.length,
    transactions,
  }
}
