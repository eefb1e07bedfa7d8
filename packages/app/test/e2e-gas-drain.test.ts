import { expect } from 'chai'
import { formatTokenAmount, type EvmAddress as Address } from '@x402-facilitator/domain'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { spawnApp } from './support/app-process.js'
import { eip3009TokenAbi } from '@x402-facilitator/adapters-chain'
import { encodeFunctionData } from 'viem'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { drainPayer, sendAs } from './support/payer-actions.js'
import { freshAddress } from './support/payments-on-chain.js'
import { waitFor } from './support/wait-for.js'
import { startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const MIN_AMOUNT = 1_000n
const ZERO_ADDRESS: Address = `0x${'0'.repeat(40)}`

/**
 * Issue 18 item 1: what would only make the facilitator pay gas is refused by a rule, before anything is claimed or
 * sent.
 */
describe('end to end: payments that would only burn gas are refused (docs/ARCHITECTURE.md §3 rules 4a, 5a, 5b)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    // One revert for funds spends the budget of gas lost to them.
    f = await startTestFacilitator({ MIN_AMOUNT: String(MIN_AMOUNT), PAYER_FUNDS_LOST_GAS_BUDGET: '1' })
  })
  after(() => f?.stop())

  const sentByFacilitator = async () =>
    BigInt(
      (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, 'pending'])) as string,
    )

  /** Verify and settle both refuse it with the reason; no journal row, no transaction. */
  const expectRefusedWithoutGas = async (body: unknown, reasonCode: string, message: string) => {
    const nonceBefore = await sentByFacilitator()
    const verify = await f.post('verify', body)
    expect(verify.status).to.equal(200)
    expect(verify.body).to.include({ valid: false, reasonCode, invalidReason: message })
    const settle = await f.post('settle', body)
    expect(settle.status).to.equal(200)
    expect(settle.body).to.include({ success: false, errorCode: reasonCode, error: message })
    expect(await f.rows()).to.have.length(0)
    expect(await sentByFacilitator()).to.equal(nonceBefore)
  }

  const units = (n: bigint) =>
    `${formatTokenAmount(n, f.running.policy.asset.decimals)} ${f.running.policy.asset.symbol}`

  const paying = (payTo: Address, value: bigint) =>
    signedPaymentBody({
      payerKey: f.chain.payers[0]!.privateKey,
      payer: f.chain.payers[0]!.address,
      payTo,
      value,
      network: f.network,
      domain: f.domain,
    })

  it('a zero value with a zero amount: invalid_exact_evm_payload_authorization_value', async () => {
    await expectRefusedWithoutGas(
      await f.payment({ value: 0n }),
      'invalid_exact_evm_payload_authorization_value',
      'authorized value is zero: a transfer of nothing is not settled',
    )
  })

  it('a required amount below MIN_AMOUNT: invalid_payment_requirements', async () => {
    await expectRefusedWithoutGas(
      await f.payment({ value: MIN_AMOUNT - 1n }),
      'invalid_payment_requirements',
      `required amount ${units(MIN_AMOUNT - 1n)} is below this facilitator's minimum of ${units(MIN_AMOUNT)}`,
    )
  })

  it('a payment signed to the zero address for requirements paying it: invalid_payment_requirements', async () => {
    await expectRefusedWithoutGas(
      await paying(ZERO_ADDRESS, 1_000_000n),
      'invalid_payment_requirements',
      'the requirements pay the zero address: tokens sent there are burnt; name a real payTo',
    )
  })

  it('an authorization to the zero address against a real payTo: recipient mismatch', async () => {
    const body = await paying(ZERO_ADDRESS, 1_000_000n)
    body.paymentRequirements.payTo = '0x00000000000000000000000000000000000be7ee'
    await expectRefusedWithoutGas(
      body,
      'invalid_exact_evm_payload_recipient_mismatch',
      `authorization pays ${ZERO_ADDRESS} but the requirements pay 0x00000000000000000000000000000000000be7ee`,
    )
  })

  it('the minimum itself is settled', async () => {
    const settle = await f.post('settle', await f.payment({ payer: 2, value: MIN_AMOUNT }))
    expect(settle.body).to.include({ success: true })
  })

  it('a payer without code whose lone transfer reverted for its balance is suspended: its next payment is refused before any gas (payer_suspended)', async () => {
    const rpc = f.chain.rpcUrl
    const payer = f.chain.payers[1]!.address as Address
    const away = freshAddress()
    const funds = await f.balanceOf(payer)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    let answer: ReturnType<TestFacilitator['post']> | undefined
    try {
      answer = f.post('settle', await f.payment({ payer: 1, value: 1_000_000n }))
      await waitFor('our transfer in the pool', async () =>
        (await hasPendingTransaction(rpc, f.chain.facilitator.address)) ? true : undefined,
      )
      // The payer's funds leave ahead of ours (no transaction of the payer's needed with a sponsored permit): ours
      // reverts on our gas.
      await drainPayer(f, 1, away)
      await anvilRpc(rpc, 'evm_mine')
    } finally {
      await anvilRpc(rpc, 'evm_setAutomine', [true])
    }
    expect((await answer!).body).to.include({ success: false, errorCode: 'invalid_transaction_state' })

    // Its funds back, the payer passes every rule again, and is still not sent for a while.
    const back = encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'transfer', args: [payer, funds] })
    await sendAs(f, away, { to: f.asset, data: back })
    await waitFor('the funds back', async () => ((await f.balanceOf(payer)) === funds ? true : undefined))
    const next = await f.payment({ payer: 1, value: 1_000_000n })
    expect((await f.post('verify', next)).body).to.include({ valid: true })
    const sent = await sentByFacilitator()
    expect((await f.post('settle', next)).body).to.include({ success: false, errorCode: 'payer_suspended' })
    expect(await sentByFacilitator()).to.equal(sent)
  })

  it('once reverts for funds spent PAYER_FUNDS_LOST_GAS_BUDGET, a payer without code not seen paying is refused before any gas (new_payer_gas_budget_spent); one that paid is sent', async () => {
    const fresh = await f.payment({ payer: 0, value: 1_000_000n })
    expect((await f.post('verify', fresh)).body).to.include({ valid: true })
    const sent = await sentByFacilitator()
    const refused = await f.post('settle', fresh)
    expect(refused.body).to.include({ success: false, errorCode: 'new_payer_gas_budget_spent' })
    expect(refused.body.error).to.match(/PAYER_FUNDS_LOST_GAS_BUDGET/)
    expect(await sentByFacilitator()).to.equal(sent)
    // Payer 2 paid the minimum above.
    expect((await f.post('settle', await f.payment({ payer: 2, value: 1_000_000n }))).body).to.include({
      success: true,
    })
  })
})

describe('end to end: production start refuses to run open', function () {
  this.timeout(60_000)
  const production = {
    RPC_URL: 'http://127.0.0.1:1',
    ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
    FACILITATOR_PRIVATE_KEY: `0x${'ab'.repeat(32)}`,
    ATTESTATION_PRIVATE_KEY: `0x${'cd'.repeat(32)}`,
    DATABASE_URL: 'postgres://127.0.0.1:1/none',
    API_KEYS: '',
    API_KEYS_FILE: '',
  }

  it('RPC_URL set and no API keys: start-up stops with one line naming the fix, before touching the chain', async () => {
    const started = spawnApp({ ...production, ALLOW_OPEN: '' }).then(
      () => 'started',
      (error: Error) => error.message,
    )
    const said = await started
    expect(said).to.match(/the app exited \(1\) before it was ready/)
    expect(said).to.include(
      'configuration: no API keys on a real network (RPC_URL or networks set): set API_KEYS or API_KEYS_FILE, or ALLOW_OPEN=true',
    )
  })
})
