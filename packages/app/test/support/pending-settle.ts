import { expect } from 'chai'
import { anvilRpc } from './chain-control.js'
import { freshAddress, paymentFromPayer } from './payments-on-chain.js'
import type { TestFacilitator } from './test-facilitator.js'

/**
 * Mining off, one settle answered 202 `settlement_pending` (its wait 1 s): its payee, its row's id, its first stored
 * attempt's raw transaction and the request (for the caller's retry), for a test of what recovery does with it next.
 */
export const settleLeftPending = async (f: TestFacilitator) => {
  await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
  const payee = freshAddress()
  const body = await paymentFromPayer(f, 0, payee, 1_000n)
  body.paymentRequirements.maxTimeoutSeconds = 1
  const answer = await f.post('settle', body)
  expect(answer.body, JSON.stringify(answer.body)).to.include({ errorCode: 'settlement_pending' })
  const row = (await f.rows()).find((r) => r.payee === payee)!
  const [first] = (await f.db.knex('settlement_attempts').where({ settlement_id: row.id })) as Array<{ raw: string }>
  return { payee, rowId: row.id, firstRaw: first!.raw, txHash: answer.body.txHash as string, body }
}
