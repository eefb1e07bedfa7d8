import { gasTrapWalletAbi, gasTrapWalletBytecode } from '@x402-facilitator/adapters-chain/testing'
import type { Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc } from './support/chain-control.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { facilitatorNonces, freshAddress, paymentBody, sendFromAnvilAccount } from './support/payments-on-chain.js'

/** Burns in every block whatever gas it gets (no transaction carries this much), never in an `eth_call`. */
const ALWAYS_IN_A_BLOCK = 50_000_000n

/** A GasTrapWallet (test-fixtures/contracts) owned by `owner`, burning in a block when it has less than `threshold` left. */
const deployTrap = async (f: CircleUsdcFacilitator, owner: Address, threshold: bigint): Promise<Address> => {
  const data = encodeDeployData({ abi: gasTrapWalletAbi, bytecode: gasTrapWalletBytecode, args: [owner, threshold, true] })
  return (await sendFromAnvilAccount(f, { data })).contractAddress!.toLowerCase() as Address
}

/** A payer holding USDC: a GasTrapWallet signed for by its owner's key (65 bytes). */
const trapWallet = async (f: CircleUsdcFacilitator, threshold: bigint) => {
  const key = generatePrivateKey()
  const payer = await deployTrap(f, privateKeyToAddress(key), threshold)
  await f.usdc.mint(payer, 1_000_000n)
  return { key, payer }
}

/**
 * An EOA delegated (EIP-7702: code `0xef0100 ‖ delegate`) to a GasTrapWallet that names the EOA as its owner: its
 * signatures recover to its own key, yet it has code, so USDC hands them to its `isValidSignature`.
 */
const delegatedEoa = async (f: CircleUsdcFacilitator, threshold: bigint) => {
  const key = generatePrivateKey()
  const payer = privateKeyToAddress(key).toLowerCase() as Address
  const delegate = await deployTrap(f, payer, threshold)
  await anvilRpc(f.chain.rpcUrl, 'anvil_setCode', [payer, `0xef0100${delegate.slice(2)}`])
  await f.usdc.mint(payer, 1_000_000n)
  return { key, payer }
}

const pay = (f: CircleUsdcFacilitator, from: { key: Hex; payer: Address }) => paymentBody(f, { payerKey: from.key, payer: from.payer, payTo: freshAddress(), value: 1_000n })

/** Review findings 1 and 2: gas lost to payers with code (Circle's USDC, the real app, anvil, Postgres). */
describe('end to end: payers with code cannot make lone transactions burn our gas for free (docs/ARCHITECTURE.md §5.7)', function () {
  this.timeout(240_000)

  describe('with the default budget', () => {
    let f: CircleUsdcFacilitator
    before(async () => {
      f = await startCircleUsdcFacilitator({ RECEIPT_TIMEOUT_SECONDS: '30' })
    })
    after(() => f?.stop())

    it('an EIP-7702-delegated EOA is a payer with code: its lone transaction reverted, it is suspended before any more gas', async () => {
      const payer = await delegatedEoa(f, ALWAYS_IN_A_BLOCK)
      expect(await anvilRpc(f.chain.rpcUrl, 'eth_getCode', [payer.payer, 'latest'])).to.match(/^0xef0100/)
      const first = await f.post('settle', await pay(f, payer))
      expect(first.body).to.include({ success: false })
      const before = await facilitatorNonces(f)
      const second = await f.post('settle', await pay(f, payer))
      expect(second.body).to.include({ success: false, errorCode: 'payer_suspended' })
      expect(await facilitatorNonces(f)).to.deep.equal(before)
    })

    it('a wallet that burns when it gets less gas than its trial had: its lone transaction gives it that gas, and it settles', async () => {
      // The trial gives the call 1 000 000 gas; a lone transaction from the trial's use alone gave ≈ 100 000.
      const payer = await trapWallet(f, 400_000n)
      const settled = await f.post('settle', await pay(f, payer))
      expect(settled.body).to.include({ success: true })
    })
  })

  describe('with a small budget of gas lost to lone reverts', () => {
    let f: CircleUsdcFacilitator
    before(async () => {
      f = await startCircleUsdcFacilitator({ RECEIPT_TIMEOUT_SECONDS: '30', CONTRACT_PAYER_LONE_LOST_GAS_BUDGET: '1500000' })
    })
    after(() => f?.stop())

    it('once fresh wallets have burnt the budget, every payer with code is refused before any gas; a payer key still settles', async () => {
      for (let n = 0; n < 2; n++) {
        const burnt = await f.post('settle', await pay(f, await trapWallet(f, ALWAYS_IN_A_BLOCK)))
        expect(burnt.body, `burn ${n}`).to.include({ success: false })
      }
      const before = await facilitatorNonces(f)
      const refused = await f.post('settle', await pay(f, await trapWallet(f, ALWAYS_IN_A_BLOCK)))
      expect(refused.body).to.include({ success: false, errorCode: 'contract_payer_gas_budget_spent' })
      expect(await facilitatorNonces(f)).to.deep.equal(before)
      const byKey = await f.post('settle', await paymentBody(f, { payerKey: f.chain.payers[0]!.privateKey, payer: f.chain.payers[0]!.address, payTo: freshAddress(), value: 1_000n }))
      expect(byKey.body).to.include({ success: true })
    })
  })
})
