import { expect } from 'chai'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { anvilRpc } from './support/chain-control.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const BLOCK_SECONDS = 12

/**
 * Rule 6's margin follows the chain's block time (docs/ARCHITECTURE.md §3): a `validBefore` inside the next two blocks
 * can only revert, whatever the chain.
 */
describe('rule 6 on a chain with 12 s blocks: the validity margin is two blocks (docs/ARCHITECTURE.md §3)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    // The chain's recent history: blocks 12 s apart ending about now, then a block every 12 s.
    f = await startTestFacilitator({}, {}, async (chain) => {
      const now = Math.floor(Date.now() / 1000)
      await anvilRpc(chain.rpcUrl, 'evm_setTime', [now - 13 * BLOCK_SECONDS])
      await anvilRpc(chain.rpcUrl, 'anvil_mine', ['0xc', `0x${BLOCK_SECONDS.toString(16)}`])
      await anvilRpc(chain.rpcUrl, 'evm_setTime', [Math.floor(Date.now() / 1000)])
      await anvilRpc(chain.rpcUrl, 'evm_setIntervalMining', [BLOCK_SECONDS])
      return chain.tokenAddress
    })
  })
  after(() => f?.stop())

  const payment = (validForSeconds: number) =>
    signedPaymentBody({
      payerKey: f.chain.payers[0]!.privateKey,
      payer: f.chain.payers[0]!.address,
      payTo: PAYEE,
      value: 1_000n,
      network: f.network,
      domain: f.domain,
      validForSeconds,
    })

  it('a validBefore inside the next two blocks (20 s) is refused by rule 6, naming the margin; one beyond them is valid', async () => {
    const refused = await f.post('verify', await payment(20))
    expect(refused.status).to.equal(200)
    expect(refused.body, JSON.stringify(refused.body)).to.include({
      valid: false,
      reasonCode: 'invalid_exact_evm_payload_authorization_valid_before',
    })
    expect(refused.body.invalidReason).to.match(/now \+ 24 s/)
    const valid = await f.post('verify', await payment(120))
    expect(valid.body, JSON.stringify(valid.body)).to.include({ valid: true })
  })
})
