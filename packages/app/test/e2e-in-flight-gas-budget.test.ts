import { gasTrapWalletAbi, gasTrapWalletBytecode } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, chainBackToNormal } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { facilitatorNonces, freshAddress, paymentBody, sendFromAnvilAccount } from './support/payments-on-chain.js'
import { BATCHING_ON } from './support/test-facilitator.js'

const ALWAYS_IN_A_BLOCK = 50_000_000n
const LOST_BUDGET = 1_200_000n
const LONE_BUDGET = 1_500_000n
/**
 * One batch item's bound (the settler's default) and one lone transaction's gas limit at most (MAX_TRANSFER_GAS
 * default).
 */
const ITEM_BOUND = 300_000n
const LONE_BOUND = 1_300_000n
/** A batch transaction's own gas beyond its items (intrinsic, calldata, the settler's loop): generous. */
const BATCH_OVERHEAD = 200_000n

/**
 * Review-2 finding 2: budgets and suspensions ignored what was in flight, so many fresh wallets sent at once all
 * passed. Each payment of a payer with code now reserves its bound while in flight. Circle's USDC, the real app, anvil,
 * Postgres.
 */
describe('end to end: fresh gas-trap wallets sent at once cannot spend more than the budgets plus one bound (docs/ARCHITECTURE.md §5.7)', function () {
  this.timeout(300_000)
  let f: CircleUsdcFacilitator
  before(async () => {
    f = await startCircleUsdcFacilitator({
      ...BATCHING_ON,
      RECEIPT_TIMEOUT_SECONDS: '2',
      CONTRACT_PAYER_LOST_GAS_BUDGET: LOST_BUDGET.toString(),
      CONTRACT_PAYER_LONE_LOST_GAS_BUDGET: LONE_BUDGET.toString(),
    })
  })
  after(() => f?.stop())
  afterEach(() => chainBackToNormal(f.chain))

  it('24 fresh wallets, maxTimeoutSeconds 1, mining off: the gas the facilitator spends stays within the budgets plus one bound each', async () => {
    const bodies = []
    for (let n = 0; n < 24; n++) {
      const key = generatePrivateKey()
      const data = encodeDeployData({
        abi: gasTrapWalletAbi,
        bytecode: gasTrapWalletBytecode,
        args: [privateKeyToAddress(key), ALWAYS_IN_A_BLOCK, true],
      })
      const payer = (await sendFromAnvilAccount(f, { data })).contractAddress!.toLowerCase() as Address
      await f.usdc.mint(payer, 1_000_000n)
      const body = await paymentBody(f, { payerKey: key, payer, payTo: freshAddress(), value: 1_000n })
      body.paymentRequirements.maxTimeoutSeconds = 1
      bodies.push(body)
    }
    const fromBlock = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string) + 1n
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const answers = await Promise.all(bodies.map((body) => f.post('settle', body)))
    expect(
      answers.every((a) => a.status < 500),
      JSON.stringify(answers.map((a) => a.body)),
    ).to.equal(true)
    await waitFor('every transaction of ours mined', async () => {
      await anvilRpc(f.chain.rpcUrl, 'evm_mine', [])
      const nonces = await facilitatorNonces(f)
      return nonces.pending === nonces.latest ? true : undefined
    })
    const latest = BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_blockNumber', [])) as string)
    let spent = 0n
    for (let n = fromBlock; n <= latest; n++) {
      const block = (await anvilRpc(f.chain.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as {
        transactions: Array<{ hash: string; from: string }>
      }
      for (const tx of block.transactions.filter(
        (t) => t.from.toLowerCase() === f.chain.facilitator.address.toLowerCase(),
      )) {
        spent += BigInt(
          ((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [tx.hash])) as { gasUsed: string }).gasUsed,
        )
      }
    }
    const bound = LOST_BUDGET + ITEM_BOUND + BATCH_OVERHEAD + LONE_BUDGET + LONE_BOUND
    expect(spent <= bound, `gas spent on payers with code: ${spent}, bound ${bound}`).to.equal(true)
  })
})
