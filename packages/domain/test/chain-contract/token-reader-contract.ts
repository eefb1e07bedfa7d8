import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { ChainUnderTest } from './chain-under-test.js'
import { EXCEEDS_BALANCE, minedReceipt, rightOf } from './contract-steps.js'

/**
 * The TokenReader port's reads that rules 8–10 and the receipt judgement rely on (docs/ARCHITECTURE.md §3): run
 * against the chain adapter on anvil and against the domain's `FakeToken`.
 */
export const tokenReaderContract = (name: string, start: () => Promise<ChainUnderTest>, stop?: () => Promise<void>) =>
  describe(`the TokenReader contract, ${name}`, function () {
    let chain: ChainUnderTest
    before(async () => {
      chain = await start()
    })
    after(async () => stop?.())

    it("domain: the token's EIP-712 domain, on this chain, at the token's address", async () => {
      const domain = await rightOf(chain.token.domain)
      expect(domain.verifyingContract.toLowerCase()).to.equal(chain.tokenAddress.toLowerCase())
      expect(domain.chainId).to.equal(chain.chainId)
      expect(domain.name).to.be.a('string').and.not.equal('')
      expect(domain.version).to.be.a('string').and.not.equal('')
    })

    it("payerState: the payer's balance, and an authorization not used yet", async () => {
      const { authorization } = await chain.payment(700n, 2_500n)
      expect(await rightOf(chain.token.payerState(authorization.from, authorization.nonce))).to.deep.equal({
        balance: 2_500n,
        authorizationUsed: false,
      })
    })

    it("trialPayment of a payment the payer can pay: it would succeed, within a transfer's gas", async () => {
      const { authorization, signature } = await chain.payment(700n, 2_500n)
      const trial = await rightOf(chain.token.trialPayment(authorization, signature))
      expect(trial).to.deep.include({ balance: 2_500n, authorizationUsed: false })
      expect(trial.transfer._tag).to.equal('WouldSucceed')
      const gas = trial.transfer._tag === 'WouldSucceed' ? trial.transfer.gasUsed : 0n
      expect(gas > 30_000n && gas < 150_000n).to.equal(true)
    })

    it("trialPayment of a payment above the payer's balance: it would revert, with the token's reason", async () => {
      const { authorization, signature } = await chain.payment(700n, 100n)
      const trial = await rightOf(chain.token.trialPayment(authorization, signature))
      expect(trial).to.deep.include({ balance: 100n, authorizationUsed: false })
      const refusals = { paused: false, payerBlacklisted: false, payeeBlacklisted: false }
      expect(trial.transfer).to.deep.include({ _tag: 'WouldRevert', ...refusals })
      expect(trial.transfer._tag === 'WouldRevert' && trial.transfer.reason).to.match(EXCEEDS_BALANCE)
    })

    it('an authorization nobody used: neither used nor ended by any transaction', async () => {
      const { authorization } = await chain.payment(1n)
      // Up to a block that exists: another payment's.
      const other = await chain.payment(2n)
      const prepared = await rightOf(chain.submitter.prepare(other.authorization, other.signature))
      const { blockNumber } = minedReceipt(await rightOf(chain.submitter.send(prepared, 10_000)))
      expect(await rightOf(chain.token.authorizationUsedBy(authorization, new Date(), blockNumber))).to.deep.equal(
        O.none,
      )
      expect(await rightOf(chain.token.authorizationEndedBy(authorization, new Date()))).to.deep.equal(O.none)
    })

    it('an authorization settled: payerState says used; the reads name the transaction and its block', async () => {
      const { authorization, signature } = await chain.payment(9n, 20n)
      const prepared = await rightOf(chain.submitter.prepare(authorization, signature))
      const receipt = minedReceipt(await rightOf(chain.submitter.send(prepared, 10_000)))
      expect(await rightOf(chain.token.payerState(authorization.from, authorization.nonce))).to.deep.equal({
        balance: 11n,
        authorizationUsed: true,
      })
      const used = { txHash: receipt.txHash, blockNumber: receipt.blockNumber }
      const by = await rightOf(chain.token.authorizationUsedBy(authorization, new Date(), receipt.blockNumber))
      expect(O.isSome(by) && by.value).to.deep.include(used)
      const ended = await rightOf(chain.token.authorizationEndedBy(authorization, new Date()))
      expect(O.isSome(ended) && ended.value).to.deep.include({ ...used, how: 'used' })
    })
  })
