import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { ChainUnderTest } from './chain-under-test.js'
import { waitFor } from '../support/wait-for.js'
import { EXCEEDS_BALANCE, minedReceipt, prepared, rightOf } from './contract-steps.js'

/**
 * The TransferSubmitter port as the settle and recovery use cases rely on it (docs/ARCHITECTURE.md §5.3–§5.7): run
 * against the chain adapter on anvil and against the domain's `FakeSubmitter`, so that the fake cannot drift.
 */
export const transferSubmitterContract = (
  name: string,
  start: () => Promise<ChainUnderTest>,
  stop?: () => Promise<void>,
) =>
  describe(`the TransferSubmitter contract, ${name}`, function () {
    let chain: ChainUnderTest
    before(async () => {
      chain = await start()
    })
    after(async () => stop?.())

    it('prepare signs distinct transactions at consecutive account nonces and broadcasts nothing', async () => {
      const [a, b] = [await chain.payment(10n), await chain.payment(11n)]
      const first = await rightOf(chain.submitter.prepare(a.authorization, a.signature))
      const second = await rightOf(chain.submitter.prepare(b.authorization, b.signature))
      expect(second.accountNonce).to.equal(first.accountNonce + 1n)
      expect(second.txHash).to.not.equal(first.txHash)
      expect(await rightOf(chain.submitter.receiptOf([first.txHash, second.txHash]))).to.deep.equal(O.none)
      expect(await rightOf(chain.submitter.minedNonce(chain.account))).to.equal(first.accountNonce)
      const sent = await Promise.all([first, second].map((p) => chain.submitter.send(p, 10_000)()))
      expect(sent.map((outcome) => outcome._tag)).to.deep.equal(['Right', 'Right'])
    })

    it('send answers the receipt of the very transaction; receiptOf and minedNonce then tell the same', async () => {
      const { authorization, signature } = await chain.payment(1_234n)
      const prepared = await rightOf(chain.submitter.prepare(authorization, signature))
      const receipt = minedReceipt(await rightOf(chain.submitter.send(prepared, 10_000)))
      expect(receipt).to.include({ txHash: prepared.txHash, succeeded: true })
      expect(receipt.blockNumber > 0n && receipt.gasUsed > 0n).to.equal(true)
      expect(receipt.blockHash).to.match(/^0x[0-9a-f]{64}$/)
      expect(receipt.items).to.equal(undefined)
      expect(await rightOf(chain.submitter.receiptOf([prepared.txHash]))).to.deep.equal(O.some(receipt))
      expect(await rightOf(chain.submitter.minedNonce(chain.account))).to.equal(prepared.accountNonce + 1n)
    })

    it('heldByNode: a transaction never broadcast is unknown to the node, a mined one is held', async () => {
      const { authorization, signature } = await chain.payment(1_235n)
      const prepared = await rightOf(chain.submitter.prepare(authorization, signature))
      expect(await rightOf(chain.submitter.heldByNode([prepared.txHash]))).to.equal(false)
      minedReceipt(await rightOf(chain.submitter.send(prepared, 10_000)))
      expect(await rightOf(chain.submitter.heldByNode([`0x${'ab'.repeat(32)}`, prepared.txHash]))).to.equal(true)
    })

    it("a lone transfer the payer cannot pay is mined reverted, with the token's reason", async () => {
      const { authorization, signature } = await chain.payment(500n, 100n)
      const prepared = await rightOf(chain.submitter.prepare(authorization, signature))
      const receipt = minedReceipt(await rightOf(chain.submitter.send(prepared, 10_000)))
      expect(receipt).to.include({ txHash: prepared.txHash, succeeded: false })
      expect(receipt.revertReason).to.match(EXCEEDS_BALANCE)
    })

    it('a discarded nonce is handed out again first, under a new hash', async () => {
      const [a, b] = [await chain.payment(1n), await chain.payment(2n)]
      const discarded = await rightOf(chain.submitter.prepare(a.authorization, a.signature))
      await chain.submitter.discard(discarded)()
      const next = await rightOf(chain.submitter.prepare(b.authorization, b.signature))
      expect(next.accountNonce).to.equal(discarded.accountNonce)
      expect(next.txHash).to.not.equal(discarded.txHash)
      expect(minedReceipt(await rightOf(chain.submitter.send(next, 10_000))).succeeded).to.equal(true)
    })

    it('an abandoned nonce is never handed out again', async () => {
      const { submitter } = await chain.freshSubmitter()
      const [a, b] = [await chain.payment(1n), await chain.payment(2n)]
      const abandoned = await rightOf(submitter.prepare(a.authorization, a.signature))
      await submitter.abandon(abandoned)()
      const next = await rightOf(submitter.prepare(b.authorization, b.signature))
      expect(next.accountNonce > abandoned.accountNonce).to.equal(true)
    })

    it('sent while no block comes: Unconfirmed; a later waiter gets its receipt once it is mined', async () => {
      const { authorization, signature } = await chain.payment(3n)
      const prepared = await rightOf(chain.submitter.prepare(authorization, signature))
      await chain.holdBlocks()
      try {
        expect(await rightOf(chain.submitter.send(prepared, 200))).to.deep.equal({ _tag: 'Unconfirmed' })
        // Sent again from its stored bytes: a node that has it counts it as sent.
        expect(await rightOf(chain.submitter.rebroadcast(prepared.raw, chain.account))).to.equal(undefined)
      } finally {
        await chain.mineHeld()
      }
      const receipt = await chain.submitter.waitForReceipt(prepared, 10_000)()
      expect(O.isSome(receipt) && receipt.value).to.deep.include({ txHash: prepared.txHash, succeeded: true })
      expect(await rightOf(chain.submitter.receiptOf([prepared.txHash]))).to.deep.equal(receipt)
    })

    it('a replacement: the same account nonce, a new hash, both fees raised by at least 10 %', async () => {
      const { authorization, signature } = await chain.payment(4n)
      const original = await rightOf(chain.submitter.prepare(authorization, signature))
      const transfer = prepared(await rightOf(chain.submitter.prepareReplacement(original)))
      expect(transfer.accountNonce).to.equal(original.accountNonce)
      expect(transfer.txHash).to.not.equal(original.txHash)
      expect(transfer.maxFeePerGas * 100n >= original.maxFeePerGas * 110n).to.equal(true)
      expect(transfer.maxPriorityFeePerGas * 100n >= original.maxPriorityFeePerGas * 110n).to.equal(true)
      const receipt = minedReceipt(await rightOf(chain.submitter.send(transfer, 10_000)))
      const found = await rightOf(chain.submitter.receiptOf([original.txHash, transfer.txHash]))
      expect(found).to.deep.equal(O.some(receipt))
    })

    it('a replacement of a replacement: again the same nonce, yet another hash, fees raised again', async () => {
      const { authorization, signature } = await chain.payment(6n)
      const original = await rightOf(chain.submitter.prepare(authorization, signature))
      const once = prepared(await rightOf(chain.submitter.prepareReplacement(original)))
      const twice = prepared(await rightOf(chain.submitter.prepareReplacement(once)))
      expect(twice.accountNonce).to.equal(original.accountNonce)
      expect(new Set([original.txHash, once.txHash, twice.txHash]).size).to.equal(3)
      expect(twice.maxFeePerGas * 100n >= once.maxFeePerGas * 110n).to.equal(true)
      expect(minedReceipt(await rightOf(chain.submitter.send(twice, 10_000))).txHash).to.equal(twice.txHash)
    })

    it("a batch's replacement carries the same payments, told item by item; its nonce is not reused", async () => {
      const items = [await chain.payment(7n), await chain.payment(8n)]
      const first = await rightOf(chain.submitter.prepareBatch(items))
      const replacement = prepared(await rightOf(chain.submitter.prepareReplacement(first)))
      // Only the replacement leaves: the first is given back, and its nonce goes out with the replacement.
      await chain.submitter.discard(first)()
      const receipt = minedReceipt(await rightOf(chain.submitter.send(replacement, 30_000)))
      expect(receipt.txHash).to.equal(replacement.txHash)
      expect(receipt.items!.map(({ index, succeeded }) => ({ index, succeeded }))).to.deep.equal([
        { index: 0, succeeded: true },
        { index: 1, succeeded: true },
      ])
      const next = await chain.payment(9n)
      const after = await rightOf(chain.submitter.prepare(next.authorization, next.signature))
      expect(after.accountNonce).to.equal(first.accountNonce + 1n)
      expect(minedReceipt(await rightOf(chain.submitter.send(after, 10_000))).succeeded).to.equal(true)
    })

    it("a batch's receipt tells each item's outcome by index, a failed one's reason; read back the same", async () => {
      const items = [await chain.payment(100n), await chain.payment(200n, 50n), await chain.payment(300n)]
      const prepared = await rightOf(chain.submitter.prepareBatch(items))
      const receipt = minedReceipt(await rightOf(chain.submitter.send(prepared, 30_000)))
      expect(receipt).to.include({ txHash: prepared.txHash, succeeded: true })
      expect(receipt.items!.map(({ index, succeeded }) => ({ index, succeeded }))).to.deep.equal([
        { index: 0, succeeded: true },
        { index: 1, succeeded: false },
        { index: 2, succeeded: true },
      ])
      expect(receipt.items![1]!.revertReason).to.match(EXCEEDS_BALANCE)
      expect(await rightOf(chain.submitter.receiptOf([prepared.txHash]))).to.deep.equal(O.some(receipt))
    })

    it('fillNonceGaps fills gaps below the highest recorded nonce once; never hands a recorded one out', async () => {
      const { submitter, account } = await chain.freshSubmitter()
      expect(await rightOf(submitter.minedNonce(account))).to.equal(0n)
      expect(await rightOf(submitter.fillNonceGaps([]))).to.deep.equal([])
      // A journalled attempt at nonce 2 (an earlier process's): 0 and 1 are gaps.
      expect(await rightOf(submitter.fillNonceGaps([2n]))).to.deep.equal([0n, 1n])
      // The fillers were sent; they are mined (the node may take a moment to mine the second).
      await waitFor('the fillers mined', async () => (await rightOf(submitter.minedNonce(account))) === 2n, 30_000, 10)
      expect(await rightOf(submitter.fillNonceGaps([2n]))).to.deep.equal([])
      const { authorization, signature } = await chain.payment(5n)
      expect((await rightOf(submitter.prepare(authorization, signature))).accountNonce).to.equal(3n)
    })
  })
