import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { makeRpcTokenReader, makeRpcTransferSubmitter } from '../src/index.js'
import {
  freshPayer,
  itemOf,
  minedWithGas,
  settleCall,
  startSettlerChain,
  TOKENS,
  type SettlerChain,
} from './batch-settler-calls.js'
import { authorizationFrom, randomNonce, right, signedBy } from './fixtures.js'

/**
 * A payer may sign two authorizations with one nonce: the one mined uses the nonce for both, but pays only its own
 * payee. A use by the other is no payment of this one (a settle must not answer success for it, docs/ARCHITECTURE.md
 * §5.4): `authorizationUsedBy` finds none, `authorizationEndedBy` a cancellation; a copy of this very one is its use.
 */
for (const [name, deploy] of TOKENS) {
  describe(`an authorization whose nonce another of the payer's authorizations used, ${name} on anvil`, function () {
    this.timeout(60_000)
    let running: SettlerChain
    before(async () => {
      running = await startSettlerChain(deploy)
    })
    after(async () => {
      running?.rpc.close()
      await running?.chain.stop()
    })

    it('is neither used nor paid by that transaction; the authorization it signed is', async () => {
      const { chain, rpc, token } = running
      const payer = await freshPayer(token, 1_000n)
      const payee = (await freshPayer(token, 0n)).address
      const elsewhere = (await freshPayer(token, 0n)).address
      const nonce = randomNonce()
      const ours = await signedBy(payer, token.domain, authorizationFrom(payer, payee, 100n, nonce))
      const other = await signedBy(payer, token.domain, authorizationFrom(payer, elsewhere, 1n, nonce))
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const prepared = await right(submitter.prepare(other.authorization, other.signature))
      const sent = await right(submitter.send(prepared, 10_000))
      expect(sent._tag).to.equal('Mined')
      const block = sent._tag === 'Mined' ? sent.receipt.blockNumber : 0n

      const reader = makeRpcTokenReader(rpc, token.address)
      expect((await right(reader.payerState(payer.address, nonce))).authorizationUsed).to.equal(true)
      expect(await right(reader.authorizationUsedBy(ours.authorization, new Date(), block))).to.deep.equal(O.none)
      const ended = await right(reader.authorizationEndedBy(ours.authorization, new Date()))
      expect(O.isSome(ended) && ended.value).to.deep.include({ how: 'cancelled', txHash: prepared.txHash })

      const by = await right(reader.authorizationUsedBy(other.authorization, new Date(), block))
      expect(O.isSome(by) && by.value.txHash).to.equal(prepared.txHash)
      const itsEnd = await right(reader.authorizationEndedBy(other.authorization, new Date()))
      expect(O.isSome(itsEnd) && itsEnd.value).to.deep.include({ how: 'used', txHash: prepared.txHash })
    })

    it('is not paid by a transaction that uses its nonce and pays its payee its value through another authorization', async () => {
      // One transaction holding many authorizations (the settler here; a Multicall3 for an attacker): each pending
      // nonce used by an authorization paying the payer 1 unit, and one fresh authorization paying the payee the
      // value. Only the transfer right after an authorization's own AuthorizationUsed is its payment.
      const { chain, rpc, token, settler } = running
      const payer = await freshPayer(token, 10_000n)
      const payee = (await freshPayer(token, 0n)).address
      const pending = await Promise.all(
        [0, 1, 2].map(() => signedBy(payer, token.domain, authorizationFrom(payer, payee, 5_000n, randomNonce()))),
      )
      const decoys = await Promise.all(
        pending.map((p) =>
          signedBy(payer, token.domain, authorizationFrom(payer, payer.address, 1n, p.authorization.nonce)),
        ),
      )
      const fresh = await signedBy(payer, token.domain, authorizationFrom(payer, payee, 5_000n, randomNonce()))
      const receipt = await minedWithGas(
        rpc,
        settleCall(
          settler,
          chain.facilitator.address,
          [...decoys, fresh].map((s) => itemOf(s)),
        ),
        2_000_000n,
      )
      const txHash = (receipt as { transactionHash: string }).transactionHash
      const block = BigInt((receipt as { blockNumber: string }).blockNumber)

      const reader = makeRpcTokenReader(rpc, token.address)
      for (const { authorization } of pending) {
        expect(await right(reader.authorizationUsedBy(authorization, new Date(), block))).to.deep.equal(O.none)
        const ended = await right(reader.authorizationEndedBy(authorization, new Date()))
        expect(O.isSome(ended) && ended.value).to.deep.include({ how: 'cancelled', txHash })
      }
      // The fresh one is paid by that transaction, at the log right after its AuthorizationUsed: the 3 decoys' pairs
      // and its own AuthorizationUsed come before it (the settler's own events between).
      const paid = await right(reader.authorizationUsedBy(fresh.authorization, new Date(), block))
      expect(O.isSome(paid) && paid.value.txHash).to.equal(txHash)
      const logs = (receipt as { logs: ReadonlyArray<{ topics: string[] }> }).logs
      const at = O.isSome(paid) ? paid.value.paymentLogIndex! : -1
      expect(logs[at]?.topics[2]).to.equal(`0x${payee.slice(2).toLowerCase().padStart(64, '0')}`)
      expect(logs.filter((l, i) => i !== at && l.topics[2] === logs[at]?.topics[2])).to.deep.equal([])
    })
  })
}
