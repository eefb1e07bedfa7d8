import { gasTrapWalletAbi, gasTrapWalletBytecode } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, chainBackToNormal, FAULT_TIMINGS, pooledFrom } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { facilitatorNonces, freshAddress, paymentBody, sendFromAnvilAccount } from './support/payments-on-chain.js'

/** Burns in every block whatever gas it gets (no transaction carries this much), never in an `eth_call`. */
const ALWAYS_IN_A_BLOCK = 50_000_000n

/** A fresh GasTrapWallet (test-fixtures/contracts) holding USDC, and its owner's key. */
const trapWallet = async (f: CircleUsdcFacilitator) => {
  const key = generatePrivateKey()
  const data = encodeDeployData({
    abi: gasTrapWalletAbi,
    bytecode: gasTrapWalletBytecode,
    args: [privateKeyToAddress(key), ALWAYS_IN_A_BLOCK, true],
  })
  const payer = (await sendFromAnvilAccount(f, { data })).contractAddress!.toLowerCase() as Address
  await f.usdc.mint(payer, 1_000_000n)
  return { key, payer }
}

const hasty = async (f: CircleUsdcFacilitator, from: { key: Hex; payer: Address }) => {
  const body = await paymentBody(f, { payerKey: from.key, payer: from.payer, payTo: freshAddress(), value: 1_000n })
  body.paymentRequirements.maxTimeoutSeconds = 1
  return body
}

/**
 * Review-2 finding 1: a settle that answered 202 before its receipt escaped every penalty. Penalties are judged from
 * the receipt wherever it is recorded (the live settle, a late receipt, recovery). Circle's USDC, the real app, anvil,
 * Postgres.
 */
describe('end to end: a payer with code that reverted after its settle answered 202 is penalised all the same (docs/ARCHITECTURE.md §5.7)', function () {
  this.timeout(240_000)
  let f: CircleUsdcFacilitator
  before(async () => {
    f = await startCircleUsdcFacilitator({ ...FAULT_TIMINGS })
  })
  after(() => f?.stop())
  afterEach(() => chainBackToNormal(f.chain))

  it('its lone transaction reverts after the 202 and recovery records it: the payer is suspended before any more gas', async () => {
    const trap = await trapWallet(f)
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const first = await f.post('settle', await hasty(f, trap))
    expect(first.status, JSON.stringify(first.body)).to.equal(202)
    await waitFor('its transaction in the pool', async () =>
      (await pooledFrom(f.chain.rpcUrl, f.chain.facilitator.address)).length > 0 ? true : undefined,
    )
    await anvilRpc(f.chain.rpcUrl, 'evm_mine', [])
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true])
    await waitFor(
      'its row recorded reverted',
      async () => ((await f.rows()).some((r) => r.payer === trap.payer && r.state === 'reverted') ? true : undefined),
      60_000,
    )
    const before = await facilitatorNonces(f)
    const second = await f.post('settle', await hasty(f, trap))
    expect(second.body).to.include({ success: false, errorCode: 'payer_suspended' })
    expect(await facilitatorNonces(f)).to.deep.equal(before)
  })
})
