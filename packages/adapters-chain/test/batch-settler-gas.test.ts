import type { EvmAddress as Address, BatchItem } from '@x402-facilitator/domain'
import { expect } from 'chai'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { LocalChain } from '../src/testing/local-chain.js'
import { fieldOf } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { batchGasLimit, settleBatchCallData } from '../src/evm/settler/settler-batch.js'
import { SETTLER_ITEM_GAS_LIMIT } from '../src/evm/settler/settler-deployment.js'
import {
  freshPayer,
  itemOf,
  minedWithGas,
  outcomesIn,
  settled,
  startSettlerChain,
  TOKENS,
  type SettleItem,
  type TokenUnderTest,
} from './batch-settler-calls.js'
import { mined, tokenCall, withVrs } from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const BATCH_SIZES = [1, 10, 50, 100] as const

/** issue 16's target: a batched transfer costs at most this share of a lone `transferWithAuthorization` transaction. */
const TARGET_SHARE = 0.75

for (const [name, deploy] of TOKENS) {
  describe(`BatchSettler on ${name}: gas per transfer, batched and alone (anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let settler: Address
    const rows: string[] = []

    before(async () => {
      ;({ chain, rpc, token, settler } = await startSettlerChain(deploy))
    })
    after(async () => {
      console.log(`      gas on ${name}:\n${rows.map((row) => `        ${row}`).join('\n')}`)
      rpc?.close()
      await chain?.stop()
    })

    /** `n` payments of distinct fresh payers to `payees(i)`, signed. */
    const payments = async (n: number, payees: (i: number) => Promise<Address>): Promise<SettleItem[]> => {
      const items: SettleItem[] = []
      for (let i = 0; i < n; i++) {
        const payer = await freshPayer(token, 1_000_000n)
        items.push(itemOf(await signedBy(payer, token.domain, authorizationFrom(payer, await payees(i), 1_000n))))
      }
      return items
    }

    it("items of payers' keys budgeted from their trials (as the settle budgets them) all settle: to fresh payees, and to payees swept to zero after their trial", async () => {
      const reader = makeRpcTokenReader(rpc, token.address, { facilitator: chain.facilitator.address })
      const items: BatchItem[] = []
      const swept: Address[] = []
      for (let i = 0; i < 10; i++) {
        const payer = await freshPayer(token, 1_000_000n)
        const payee = (await freshPayer(token, i % 2 === 0 ? 0n : 5_000n)).address
        if (i % 2 === 1) swept.push(payee)
        const { authorization, signature } = await signedBy(
          payer,
          token.domain,
          authorizationFrom(payer, payee, 1_000n),
        )
        const trial = await right(reader.trialPayment(authorization, signature))
        if (trial.transfer._tag !== 'WouldSucceed') throw new Error('expected the trial to succeed')
        items.push({ authorization, signature, executionGas: trial.transfer.gasUsed, payerHasCode: false })
      }
      // The worst case for a payee's balance slot: held tokens at the trial, none at the block (a new slot again).
      for (const payee of swept) {
        await rpc.read('anvil_setBalance', [payee, '0xde0b6b3a7640000'])
        await mined(
          rpc,
          tokenCall(token.address, payee, 'transfer', ['0x00000000000000000000000000000000000000ee', 5_000n]),
        )
      }
      const data = settleBatchCallData(items, SETTLER_ITEM_GAS_LIMIT)
      const receipt = await minedWithGas(
        rpc,
        { from: chain.facilitator.address, to: settler, data },
        batchGasLimit(data, items, SETTLER_ITEM_GAS_LIMIT),
      )
      expect(fieldOf(receipt, 'status')).to.equal('0x1')
      expect(outcomesIn(receipt).map((o) => o.success)).to.deep.equal(Array(10).fill(true))
    })

    /** The gasUsed of a lone `transferWithAuthorization` (v,r,s) transaction sent by the facilitator. */
    const loneGas = async (item: SettleItem): Promise<bigint> => {
      const receipt = await mined(
        rpc,
        tokenCall(token.address, chain.facilitator.address, 'transferWithAuthorization', withVrs(item, item.signature)),
      )
      return BigInt(String(fieldOf(receipt, 'gasUsed')))
    }

    /** Gas per transfer for each batch size, and the share of a lone transaction's gas; every item succeeds. */
    const measure = async (what: string, payees: (i: number) => Promise<Address>) => {
      const [lone] = await payments(1, payees)
      const alone = await loneGas(lone!)
      rows.push(`${what}: a lone transferWithAuthorization transaction ${alone}`)
      const shares = new Map<number, number>()
      for (const n of BATCH_SIZES) {
        const items = await payments(n, payees)
        const { outcomes, gasUsed } = await settled(rpc, settler, chain.facilitator.address, items)
        expect(outcomes.filter((o) => o.success)).to.have.length(n)
        const perItem = gasUsed / BigInt(n)
        shares.set(n, Number(perItem) / Number(alone))
        rows.push(
          `${what}: batch of ${String(n).padStart(3)}: ${gasUsed} in all, ${perItem} per transfer = ` +
            `${(100 * shares.get(n)!).toFixed(1)} % of lone`,
        )
      }
      return shares
    }

    it('to one payee that already holds the token (a seller paid by many): ≤ 75 % of a lone transfer from 10 items on', async () => {
      const seller = (await freshPayer(token, 1n)).address
      const shares = await measure('to one seller', async () => seller)
      for (const n of [10, 50, 100]) expect(shares.get(n)!, `batch of ${n}`).to.be.at.most(TARGET_SHARE)
    })

    it('each to a fresh payee (its first balance: a new storage slot): cheaper per transfer than alone from 10 items on', async () => {
      const shares = await measure('to fresh payees', async () => (await freshPayer(token, 0n)).address)
      for (const n of [10, 50, 100]) expect(shares.get(n)!, `batch of ${n}`).to.be.below(1)
    })
  })
}
