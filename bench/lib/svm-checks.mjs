// The checks of the svm-settle phase: every answered settlement on the local SVM and in the journal, and exactly once
// whatever the answers said. A Solana payment is its payer's transaction with our fee payer's signature added: the
// answered `transaction` is that signature, which the chain executes once at most (a duplicate is refused).

/** Token balances of `owners` on the local SVM (duplicates read once): owner → bigint. */
export const svmBalances = async (solana, owners) => {
  const list = [...new Set(owners)]
  const values = await solana.call('balances', { owners: list })
  return new Map(list.map((o, i) => [o, BigInt(values[i])]))
}

/** The fee payer's lamports now. */
export const feePayerLamports = async (solana) => BigInt(await solana.call('lamports', { address: solana.feePayer }))

/**
 * `signed[i]` was answered `answers[i]`; `balancesBefore` (payers and `payTo`) and `lamportsBefore` (the fee payer's)
 * were read before the phase began. { ok (no problem at all), exactlyOnce, problems, journalRows,
 * feePayerLamportsPerSettle }
 */
export const checkSvmSettlements = async ({ solana, db, signed, answers, payTo, balancesBefore, lamportsBefore }) => {
  const problems = []
  const signatures = answers.map((a) => (a?.body?.success === true ? a.body.transaction : undefined))
  const answered = signatures.filter(Boolean)
  if (answered.length !== signed.length)
    problems.push(`${signed.length - answered.length} payments not answered success`)
  if (new Set(answered).size !== answered.length) problems.push('a transaction answered for two payments')

  // On-chain: each answered signature executed without error (and confirmed at least: the settle waits for it).
  const statuses = await solana.call('statuses', { signatures: answered })
  const notLanded = statuses.filter((s) => s === null || s.err !== null || s.commitment === 'processed').length
  if (notLanded > 0) problems.push(`${notLanded} answered transactions not executed and confirmed without error`)

  // Balances: the payee (fresh) holds exactly the payments' sum; each payer paid exactly its own.
  const payers = [...new Set(signed.map((s) => s.payer))]
  const after = await svmBalances(solana, [...payers, payTo])
  const spent = new Map()
  for (const s of signed) spent.set(s.payer, (spent.get(s.payer) ?? 0n) + s.value)
  const payerProblems = payers.filter((p) => balancesBefore.get(p) - after.get(p) !== spent.get(p))
  for (const p of payerProblems)
    problems.push(`payer ${p} balance moved by ${balancesBefore.get(p) - after.get(p)}, expected ${spent.get(p)}`)
  const total = signed.reduce((sum, s) => sum + s.value, 0n)
  const moved = after.get(payTo) - balancesBefore.get(payTo)
  if (moved !== total) problems.push(`payee received ${moved}, expected ${total}`)

  // The journal: one row per payment to this payee, confirmed (or final: 32 slots, 3.2 s here), naming the answered
  // transaction, with one attempt: that transaction.
  const { rows } = await db.query(
    `select s.payer, s.state, s.tx_hash, a.attempts, a.attempt_tx
     from settlements s
     cross join lateral (select count(*)::int as attempts, max(tx_hash) as attempt_tx
       from settlement_attempts where settlement_id = s.id) a
     where s.chain_id = $1 and s.payee = $2`,
    [solana.network, payTo],
  )
  const settled = (state) => state === 'confirmed' || state === 'final'
  const byTx = new Map(rows.map((r) => [r.tx_hash, r]))
  const journalProblems = signed.filter((s, i) => {
    const r = byTx.get(signatures[i])
    return !r || !settled(r.state) || r.attempts !== 1 || r.attempt_tx !== signatures[i] || r.payer !== s.payer
  }).length
  if (rows.length !== signed.length)
    problems.push(`${rows.length} journal rows for the payee, expected ${signed.length}`)
  if (journalProblems > 0)
    problems.push(
      `${journalProblems} payments without a settled journal row naming their answered transaction (one attempt)`,
    )

  const lamportsAfter = await feePayerLamports(solana)
  const exactlyOnce =
    moved === total &&
    payerProblems.length === 0 &&
    rows.length === signed.length &&
    rows.every((r) => settled(r.state))
  return {
    ok: problems.length === 0,
    exactlyOnce,
    problems,
    journalRows: rows.length,
    feePayerLamportsPerSettle: Number(lamportsBefore - lamportsAfter) / signed.length,
  }
}
