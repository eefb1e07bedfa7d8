import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { makeRpcTokenReader, makeRpcTransferSubmitter } from '../src/index.js'
import { freshPayer, startSettlerChain, TOKENS, type SettlerChain } from './batch-settler-calls.js'
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
  })
}
