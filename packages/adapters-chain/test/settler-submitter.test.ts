import type { EvmAddress as Address, BatchItem, PreparedTransfer, SendOutcome } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { parseTransaction } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { LocalChain } from '../src/testing/local-chain.js'
import {
  batchGasLimit,
  DEFAULT_BATCH_BOUNDS,
  itemsThatFit,
  settleBatchCallData,
} from '../src/evm/settler/settler-batch.js'
import { SETTLER_ITEM_GAS_LIMIT } from '../src/evm/settler/settler-deployment.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { freshPayer, startSettlerChain, TOKENS, type TokenUnderTest } from './batch-settler-calls.js'
import { balanceOf } from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const receiptOf = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error('no receipt in time')
  return outcome.receipt
}

for (const [name, deploy] of TOKENS) {
  describe(`the submitter with a BatchSettler on ${name} (docs/ARCHITECTURE.md §5.7, anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let settler: Address
    let submitter: RpcTransferSubmitter

    before(async () => {
      ;({ chain, rpc, token, settler } = await startSettlerChain(deploy))
      // A fee cap well above the fees it signs at: the replacement test needs room for a 10 % raise.
      submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
        settler,
        maxFeePerGas: 10n ** 12n,
      })
    })
    after(async () => {
      rpc?.close()
      await chain?.stop()
    })

    const payment = async (
      value: bigint,
      funded = value,
      to?: Address,
    ): Promise<BatchItem & { readonly payee: Address }> => {
      const payer = await freshPayer(token, funded)
      const payee = to ?? (await freshPayer(token, 0n)).address
      const { authorization, signature } = await signedBy(payer, token.domain, authorizationFrom(payer, payee, value))
      return { authorization, signature, payee }
    }
    const balance = (account: Address) => balanceOf(rpc, token.address, account)

    it("one transaction to the settler; the receipt tells each payment's outcome, a failed one with the token's reason", async () => {
      const items = [await payment(100n), await payment(200n, 50n), await payment(300n)]
      const prepared = await right(submitter.prepareBatch!(items))
      expect(parseTransaction(prepared.raw).to?.toLowerCase()).to.equal(settler)
      const receipt = receiptOf(await right(submitter.send(prepared, 30_000)))
      expect(receipt.succeeded).to.equal(true)
      expect(receipt.items!.map(({ index, succeeded }) => ({ index, succeeded }))).to.deep.equal([
        { index: 0, succeeded: true },
        { index: 1, succeeded: false },
        { index: 2, succeeded: true },
      ])
      expect(receipt.items![1]!.revertReason).to.match(/transfer amount exceeds balance$/)
      expect([
        await balance(items[0]!.payee),
        await balance(items[1]!.payee),
        await balance(items[2]!.payee),
      ]).to.deep.equal([100n, 0n, 300n])
      // Read back later (recovery, the finality watcher), the receipt tells the same — also by a submitter configured
      // without this settler (BATCHING=off since, another replica): the items are read from the called contract's
      // events.
      const again = await right(submitter.receiptOf([prepared.txHash]))
      expect(again._tag === 'Some' && again.value.items).to.deep.equal(receipt.items)
      const unconfigured = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const read = await right(unconfigured.receiptOf([prepared.txHash]))
      expect(read._tag === 'Some' && read.value.items).to.deep.equal(receipt.items)
    })

    it('a replacement carries the very same call (recipient, calldata, gas limit) at the same nonce with higher fees', async () => {
      const items = [await payment(10n), await payment(20n)]
      const first: PreparedTransfer = await right(submitter.prepareBatch!(items))
      const replacement = await right(submitter.prepareReplacement(first))
      if (replacement._tag !== 'Prepared') throw new Error('at the fee cap')
      const [a, b] = [parseTransaction(first.raw), parseTransaction(replacement.transfer.raw)]
      expect({ to: b.to, data: b.data, gas: b.gas, nonce: b.nonce }).to.deep.equal({
        to: a.to,
        data: a.data,
        gas: a.gas,
        nonce: a.nonce,
      })
      expect(replacement.transfer.maxFeePerGas > first.maxFeePerGas).to.equal(true)
      expect(replacement.transfer.maxPriorityFeePerGas > first.maxPriorityFeePerGas).to.equal(true)
      // Either may be mined; the other is then refused. The replacement wins here: both payments are made once.
      await submitter.discard(first)()
      const receipt = receiptOf(await right(submitter.send(replacement.transfer, 30_000)))
      expect(receipt.items!.map((i) => i.succeeded)).to.deep.equal([true, true])
      expect([await balance(items[0]!.payee), await balance(items[1]!.payee)]).to.deep.equal([10n, 20n])
    })

    it("gas per payment of a batch of 20 to one seller is at most 75 % of a lone transfer's to it (every item gets its bound)", async () => {
      const seller = (await freshPayer(token, 0n)).address
      await token.mint(seller, 1n)
      const lone = await payment(5n, 5n, seller)
      const loneReceipt = receiptOf(
        await right(submitter.send(await right(submitter.prepare(lone.authorization, lone.signature)), 30_000)),
      )
      const items = []
      // One at a time: each payment mints from one account.
      for (let i = 0; i < 20; i++) items.push(await payment(5n, 5n, seller))
      const receipt = receiptOf(await right(submitter.send(await right(submitter.prepareBatch!(items)), 30_000)))
      expect(receipt.items!.every((i) => i.succeeded)).to.equal(true)
      expect(Number(receipt.gasUsed / 20n) / Number(loneReceipt.gasUsed)).to.be.at.most(0.75)
    })
  })
}

describe('how many payments one settler call may carry (gas and size bounds)', () => {
  const item = (signatureBytes: number, executionGas?: bigint): BatchItem => ({
    authorization: {
      from: `0x${'11'.repeat(20)}`,
      to: `0x${'22'.repeat(20)}`,
      value: 1n,
      validAfter: 0n,
      validBefore: 2n ** 40n,
      nonce: `0x${'33'.repeat(32)}`,
    },
    signature: `0x${'44'.repeat(signatureBytes)}`,
    ...(executionGas === undefined ? {} : { executionGas }),
  })
  const bounds = DEFAULT_BATCH_BOUNDS

  it('100 EOA payments (65-byte signatures, tried) fit one call; its gas limit is within the bound', () => {
    const items = Array.from({ length: 100 }, () => item(65, 60_000n))
    expect(itemsThatFit(items, SETTLER_ITEM_GAS_LIMIT, bounds)).to.equal(100)
    expect(
      batchGasLimit(settleBatchCallData(items, SETTLER_ITEM_GAS_LIMIT), items, SETTLER_ITEM_GAS_LIMIT) <= bounds.maxGas,
    ).to.equal(true)
  })

  it("a wallet's signature (not 65 bytes) or an untried payment is given its full bound, so fewer fit; the limit stays within the bound", () => {
    const items = Array.from({ length: 100 }, () => item(300, 60_000n))
    const fit = itemsThatFit(items, SETTLER_ITEM_GAS_LIMIT, bounds)
    expect(fit).to.be.within(30, 50)
    expect(
      batchGasLimit(
        settleBatchCallData(items.slice(0, fit), SETTLER_ITEM_GAS_LIMIT),
        items.slice(0, fit),
        SETTLER_ITEM_GAS_LIMIT,
      ) <= bounds.maxGas,
    ).to.equal(true)
    expect(
      batchGasLimit(
        settleBatchCallData([item(300, 60_000n)], SETTLER_ITEM_GAS_LIMIT),
        [item(300, 60_000n)],
        SETTLER_ITEM_GAS_LIMIT,
      ),
    ).to.equal(
      batchGasLimit(settleBatchCallData([item(300)], SETTLER_ITEM_GAS_LIMIT), [item(300)], SETTLER_ITEM_GAS_LIMIT),
    )
  })

  it('calldata is bounded too (nodes refuse transactions over 128 KiB); one payment always fits', () => {
    const items = Array.from({ length: 400 }, () => item(65, 1n))
    const fit = itemsThatFit(items, SETTLER_ITEM_GAS_LIMIT, { maxGas: 10n ** 12n, maxBytes: bounds.maxBytes })
    expect(fit).to.be.lessThan(400)
    expect((settleBatchCallData(items.slice(0, fit), SETTLER_ITEM_GAS_LIMIT).length - 2) / 2).to.be.at.most(
      bounds.maxBytes,
    )
    expect(itemsThatFit([item(10_000)], SETTLER_ITEM_GAS_LIMIT, { maxGas: 1n, maxBytes: 1 })).to.equal(1)
  })
})
