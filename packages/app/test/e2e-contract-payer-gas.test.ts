import {
  gasDodgeWalletAbi,
  gasDodgeWalletBytecode,
  gasTrapWalletAbi,
  gasTrapWalletBytecode,
} from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, toEventSelector } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import {
  facilitatorNonces,
  freshAddress,
  paymentBody,
  paymentFromPayer,
  sendFromAnvilAccount,
} from './support/payments-on-chain.js'
import { BATCHING_ON } from './support/test-facilitator.js'

/** Burns in every block whatever gas it gets (no transaction carries this much), never in an `eth_call`. */
const ALWAYS_IN_A_BLOCK = 50_000_000n

/**
 * A GasTrapWallet (test-fixtures/contracts) owned by `owner`, burning in a block when it has less than `threshold`
 * left.
 */
const deployTrap = async (f: CircleUsdcFacilitator, owner: Address, threshold: bigint): Promise<Address> => {
  const data = encodeDeployData({
    abi: gasTrapWalletAbi,
    bytecode: gasTrapWalletBytecode,
    args: [owner, threshold, true],
  })
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

const pay = (f: CircleUsdcFacilitator, from: { key: Hex; payer: Address }) =>
  paymentBody(f, { payerKey: from.key, payer: from.payer, payTo: freshAddress(), value: 1_000n })

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
      f = await startCircleUsdcFacilitator({
        RECEIPT_TIMEOUT_SECONDS: '30',
        CONTRACT_PAYER_LONE_LOST_GAS_BUDGET: '1500000',
      })
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
      const byKey = await f.post(
        'settle',
        await paymentBody(f, {
          payerKey: f.chain.payers[0]!.privateKey,
          payer: f.chain.payers[0]!.address,
          payTo: freshAddress(),
          value: 1_000n,
        }),
      )
      expect(byKey.body).to.include({ success: true })
    })
  })

  describe('in batches', () => {
    let f: CircleUsdcFacilitator
    before(async () => {
      f = await startCircleUsdcFacilitator({ ...BATCHING_ON, RECEIPT_TIMEOUT_SECONDS: '60' }, { blockTimeSeconds: 2 })
    })
    after(() => f?.stop())

    type Tx = { from: string; to: string | null; input: string }
    /** The facilitator's transactions mined since `fromBlock` whose calldata names `payer`. */
    const transactionsNaming = async (fromBlock: bigint, payer: Address): Promise<Tx[]> => {
      const latest = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string)
      const found: Tx[] = []
      for (let n = fromBlock; n <= latest; n++) {
        const block = (await anvilRpc(f.chain.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as {
          transactions: Tx[]
        }
        found.push(
          ...block.transactions.filter(
            (tx) =>
              tx.from.toLowerCase() === f.chain.facilitator.address.toLowerCase() && tx.input.includes(payer.slice(2)),
          ),
        )
      }
      return found
    }

    it('an item that burnt its whole bound in its batch is not sent again alone (one burn per payment), and its payer is suspended', async () => {
      const trap = await trapWallet(f, ALWAYS_IN_A_BLOCK)
      const fromBlock = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string)
      const payee = freshAddress()
      // A first payment goes alone at once; while it waits for its block, the others gather into one settler call.
      const before = await facilitatorNonces(f)
      const first = f.post('settle', await paymentFromPayer(f, 0, payee, 1_000n))
      await waitFor('the first payment broadcast', async () =>
        (await facilitatorNonces(f)).pending > before.pending ? true : undefined,
      )
      const honest = await Promise.all(
        [1, 2, 3].map((n) => paymentFromPayer(f, n % f.chain.payers.length, payee, 1_000n + BigInt(n))),
      )
      const answers = await Promise.all([...honest, await pay(f, trap)].map((body) => f.post('settle', body)))
      expect((await first).body).to.include({ success: true })
      expect(answers.slice(0, 3).map((a) => a.body.success)).to.deep.equal([true, true, true])
      expect(answers[3]!.body).to.include({ success: false })
      const carrying = await transactionsNaming(fromBlock, trap.payer)
      expect(carrying, 'transactions carrying the trap payment').to.have.length(1)
      expect(carrying[0]!.to?.toLowerCase(), 'its one transaction is a settler batch').to.not.equal(
        f.asset.toLowerCase(),
      )
      const again = await f.post('settle', await pay(f, trap))
      expect(again.body).to.include({ success: false, errorCode: 'payer_suspended' })
    })

    it('a payer delegated (EIP-7702) to a burner after its verify: its batch item loses at most its own budget, the honest items settle, no BatchStopped', async () => {
      const key = generatePrivateKey()
      const victim = { key, payer: privateKeyToAddress(key).toLowerCase() as Address }
      const delegate = await deployTrap(f, victim.payer, ALWAYS_IN_A_BLOCK)
      await f.usdc.mint(victim.payer, 1_000_000n)
      const fromBlock = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string)
      const payee = freshAddress()
      const before = await facilitatorNonces(f)
      const first = f.post('settle', await paymentFromPayer(f, 0, payee, 1_000n))
      await waitFor('the first payment broadcast', async () =>
        (await facilitatorNonces(f)).pending > before.pending ? true : undefined,
      )
      const honest = await Promise.all(
        [1, 2, 3].map((n) => paymentFromPayer(f, n % f.chain.payers.length, freshAddress(), 3_000n + BigInt(n))),
      )
      const answers = Promise.all([...honest, await pay(f, victim)].map((body) => f.post('settle', body)))
      // Verified (its row is claimed only after verify) while it had no code; delegated before its batch is mined.
      await waitFor('the victim verified', async () =>
        (await f.rows()).some((r) => r.payer === victim.payer) ? true : undefined,
      )
      await anvilRpc(f.chain.rpcUrl, 'anvil_setCode', [victim.payer, `0xef0100${delegate.slice(2)}`])
      const settled = await answers
      expect((await first).body).to.include({ success: true })
      expect(settled.slice(0, 3).map((a) => a.body.success)).to.deep.equal([true, true, true])
      expect(settled[3]!.body).to.include({ success: false })
      const carrying = await transactionsNaming(fromBlock, victim.payer)
      expect(carrying, 'transactions carrying the victim payment').to.have.length(1)
      expect(carrying[0]!.to?.toLowerCase(), 'its one transaction is a settler batch').to.not.equal(
        f.asset.toLowerCase(),
      )
      const hash = (carrying[0] as Tx & { hash: Hex }).hash
      const receipt = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) as {
        status: string
        logs: Array<{ topics: Hex[]; data: Hex }>
      }
      expect(receipt.status).to.equal('0x1')
      expect(
        receipt.logs.filter((l) => l.topics[0] === toEventSelector('BatchStopped(uint256,uint256)')),
        'BatchStopped',
      ).to.deep.equal([])
      const burnt = receipt.logs
        .filter((l) => l.topics[0] === toEventSelector('ItemGasUsed(uint256,uint256)'))
        .map((l) => BigInt(`0x${l.data.slice(66, 130)}`))
      expect(burnt, "the victim's failed item").to.have.length(1)
      // Its budget from a trial of a payer's key (≈ 85 000 on USDC), far below the settler's 300 000 bound.
      expect(Number(burnt[0]!)).to.be.below(150_000)
    })

    it('a payer with code whose item failed in its batch short of its bound (its wallet leaves 15 000 gas) is not sent again alone: released, suspended, and the retry refused payer_suspended', async () => {
      const key = generatePrivateKey()
      const data = encodeDeployData({
        abi: gasDodgeWalletAbi,
        bytecode: gasDodgeWalletBytecode,
        args: [privateKeyToAddress(key), 15_000n],
      })
      const dodger = { key, payer: (await sendFromAnvilAccount(f, { data })).contractAddress!.toLowerCase() as Address }
      await f.usdc.mint(dodger.payer, 1_000_000n)
      const fromBlock = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string)
      const payee = freshAddress()
      const before = await facilitatorNonces(f)
      const first = f.post('settle', await paymentFromPayer(f, 0, payee, 1_000n))
      await waitFor('the first payment broadcast', async () =>
        (await facilitatorNonces(f)).pending > before.pending ? true : undefined,
      )
      const honest = await Promise.all(
        [1, 2].map((n) => paymentFromPayer(f, n % f.chain.payers.length, payee, 2_000n + BigInt(n))),
      )
      const dodge = await pay(f, dodger)
      const answers = await Promise.all([...honest, dodge].map((body) => f.post('settle', body)))
      expect((await first).body).to.include({ success: true })
      expect(answers.slice(0, 2).map((a) => a.body.success)).to.deep.equal([true, true])
      expect(answers[2]!.body).to.include({ success: false, errorCode: 'payer_suspended' })
      const carrying = await transactionsNaming(fromBlock, dodger.payer)
      expect(carrying, 'transactions carrying the dodging payment').to.have.length(1)
      expect(carrying[0]!.to?.toLowerCase(), 'its one transaction is a settler batch').to.not.equal(
        f.asset.toLowerCase(),
      )
      // Its row was released (its authorization is unused), not journalled reverted: the retry is refused for the
      // suspension.
      const retry = await f.post('settle', dodge)
      expect(retry.body).to.include({ success: false, errorCode: 'payer_suspended' })
      expect(await transactionsNaming(fromBlock, dodger.payer)).to.have.length(1)
    })
  })
})
