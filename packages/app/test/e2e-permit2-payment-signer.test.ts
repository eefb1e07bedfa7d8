import { signPermit2Payment, type Permit2PaymentRequirements } from '@x402-facilitator/adapters-chain'
import type { PaymentPayload } from '@x402/core/types'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'

/**
 * `signPermit2Payment` (what the demo and the bench sign with, since the official client is a dev dependency) makes
 * the very payload @x402/evm 2.27's client makes: given the client's nonce and clock, the same JSON byte for byte,
 * signatures and the sponsored EIP-2612 permit included; and the facilitator settles it.
 */
describe('signPermit2Payment makes the payload of @x402/evm 2.27', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  before(async () => {
    f = await startPermit2Facilitator()
  })
  after(() => f?.stop())

  const sponsoring = { eip2612GasSponsoring: { info: {}, schema: {} } }
  const resource = { url: 'https://api.example/paid' }

  /** Our payload for the official one's nonce and clock (its deadline less the requirements' timeout). */
  const ours = (payer: number, official: PaymentPayload, sponsored: boolean) => {
    const authorization = (official.payload as { permit2Authorization: { nonce: string; deadline: string } })
      .permit2Authorization
    return signPermit2Payment({
      privateKey: f.chain.payers[payer]!.privateKey,
      requirements: official.accepted as Permit2PaymentRequirements,
      resource,
      nonce: authorization.nonce,
      now: Number(authorization.deadline) - official.accepted.maxTimeoutSeconds,
      ...(sponsored ? { extensions: sponsoring, rpcUrl: f.chain.rpcUrl } : {}),
    })
  }

  for (const [scheme, payer, sponsored] of [
    ['exact', 0, false],
    ['exact', 0, true],
    ['exact', 2, true],
    ['upto', 1, false],
  ] as const)
    it(`${scheme}, payer ${payer}${sponsored ? ', eip2612GasSponsoring declared' : ''}: equal, and it settles`, async () => {
      const requirements = f.requirements(scheme, 2_000_000n)
      const official = await f.pay(payer, requirements, { sponsored })
      const mine = await ours(payer, official, sponsored)
      expect(JSON.parse(JSON.stringify(mine))).to.deep.equal(JSON.parse(JSON.stringify(official)))
      // Payer 2 has no allowance: the permit is in.
      const info = (mine.extensions as { eip2612GasSponsoring?: { info?: { signature?: string } } } | undefined)
        ?.eip2612GasSponsoring?.info
      expect(info?.signature !== undefined).to.equal(payer === 2)
      const before = await f.tokenBalance(PAYEE as Address)
      const settled = await f.post('settle', f.body(mine as PaymentPayload, requirements))
      expect(settled.body, JSON.stringify(settled.body)).to.deep.include({ success: true })
      expect(await f.tokenBalance(PAYEE as Address)).to.equal(before + 2_000_000n)
    })
})
