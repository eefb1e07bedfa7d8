import { expect } from 'chai'
import { HTTPFacilitatorClient } from '@x402/core/http'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { toEventSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc, hasPendingTransaction } from './support/chain-control.js'
import { approvePermit2 } from './support/permit2-payer-actions.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startPermit2Facilitator, type Permit2Facilitator } from './support/permit2-facilitator.js'

const APPROVAL = toEventSelector('Approval(address,address,uint256)')
const TRANSFER = toEventSelector('Transfer(address,address,uint256)')

/**
 * Permit2 `exact` end to end (issue 26): payloads made by @x402/evm 2.27's `ExactEvmScheme`, the real app on anvil
 * and Postgres, DemoUsdt paid only through Permit2 and x402's exact proxy at their canonical addresses.
 */
describe('e2e: Permit2 exact with the official client', function () {
  this.timeout(120_000)
  let f: Permit2Facilitator
  before(async () => {
    f = await startPermit2Facilitator()
  })
  after(() => f?.stop())

  const facilitator = () => f.chain.facilitator.address as Address

  it('settles exactly once: the payee gets the amount, one row; the same payload again moves nothing', async () => {
    const accepted = f.requirements('exact', 1_500_000n)
    const payload = await f.pay(0, accepted)
    const payer = f.chain.payers[0]!.address as Address
    const [payerBefore, payeeBefore] = [await f.tokenBalance(payer), await f.tokenBalance(PAYEE)]
    const verified = await f.post('verify', f.body(payload, accepted))
    expect(verified.body).to.deep.include({ isValid: true })
    const settled = await f.post('settle', f.body(payload, accepted))
    expect(settled.status).to.equal(200)
    expect(settled.body).to.deep.include({ success: true, network: f.caip2, amount: '1500000' })
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_500_000n)
    expect(await f.tokenBalance(payer)).to.equal(payerBefore - 1_500_000n)
    const sent = await f.sentBy(facilitator())
    const again = await f.post('settle', f.body(payload, accepted))
    expect(again.body).to.deep.include({ success: false, errorReason: 'authorization_already_used' })
    const client = new HTTPFacilitatorClient({ url: f.base })
    expect(await client.verify(payload, accepted)).to.deep.include({
      isValid: false,
      invalidReason: 'authorization_already_used',
    })
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_500_000n)
    expect(await f.sentBy(facilitator())).to.equal(sent)
    const rows = await f.rows()
    expect(rows).to.have.length(1)
    expect(rows[0]).to.deep.include({ value: '1500000', tx_hash: settled.body.transaction })
    expect(rows[0]!.state).to.be.oneOf(['confirmed', 'final'])
  })

  it('a witness paying someone else is refused before any gas', async () => {
    const signedFor = f.requirements('exact', 1_000_000n, { payTo: `0x${'66'.repeat(20)}` })
    const payload = await f.pay(1, signedFor)
    const asked = f.requirements('exact', 1_000_000n)
    const sent = await f.sentBy(facilitator())
    for (const endpoint of ['verify', 'settle'] as const) {
      const answer = await f.post(endpoint, f.body({ ...payload, accepted: asked }, asked))
      expect(JSON.stringify(answer.body)).to.include('invalid_permit2_recipient_mismatch')
    }
    expect(await f.sentBy(facilitator())).to.equal(sent)
  })

  it('a deadline inside the margin: permit2_deadline_expired; no allowance, no permit: permit2_allowance_required', async () => {
    const soon = f.requirements('exact', 1_000_000n, { maxTimeoutSeconds: 1 })
    const expired = await f.post('verify', f.body(await f.pay(1, soon), soon))
    expect(expired.body).to.deep.include({ isValid: false, invalidReason: 'permit2_deadline_expired' })
    const accepted = f.requirements('exact', 1_000_000n)
    const unapproved = await f.post('settle', f.body(await f.pay(2, accepted), accepted))
    expect(unapproved.status).to.equal(200)
    expect(unapproved.body).to.deep.include({ success: false, errorReason: 'permit2_allowance_required' })
  })

  it('EIP-2612 sponsoring: a payer without allowance settles in one transaction holding Approval and Transfer', async () => {
    const accepted = f.requirements('exact', 2_000_000n)
    const payload = await f.pay(3, accepted, { sponsored: true })
    expect(payload.extensions).to.have.nested.property('eip2612GasSponsoring.info.signature')
    const payeeBefore = await f.tokenBalance(PAYEE)
    const settled = await f.post('settle', f.body(payload, accepted))
    expect(settled.body).to.deep.include({ success: true })
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 2_000_000n)
    const receipt = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [settled.body.transaction])) as {
      logs: Array<{ address: string; topics: string[] }>
    }
    const fromToken = receipt.logs.filter((log) => log.address.toLowerCase() === f.asset)
    const [approval, transfer] = [APPROVAL, TRANSFER].map((event) => fromToken.filter((l) => l.topics[0] === event))
    expect(approval, 'the permit approved Permit2 in the same transaction').to.have.length.greaterThan(0)
    expect(transfer, 'and the payment moved').to.have.length(1)
  })
  it('a forged EIP-2612 permit is refused before any claim (eip2612_permit_invalid); the genuine one with its nonce then settles', async () => {
    const accepted = f.requirements('exact', 1_000_000n)
    const payer = f.chain.payers[4]!.address as Address
    const genuine = await f.pay(4, accepted, { sponsored: true })
    const extension = genuine.extensions!.eip2612GasSponsoring as { info: Record<string, string> }
    const { info } = extension
    // The payer approves Permit2 itself: a payment on that allowance needs no permit, and the proxy swallows a
    // failed one. Someone between payer and facilitator attaches a permit of the payer's next nonce signed by another.
    await approvePermit2(f.chain.rpcUrl, f.asset, payer)
    const plain = await f.pay(4, accepted)
    const forgedSignature = await privateKeyToAccount(f.chain.payers[0]!.privateKey).signTypedData({
      domain: { ...f.domain, chainId: Number(f.domain.chainId) },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: {
        owner: payer,
        spender: info.spender as Address,
        value: BigInt(info.amount!),
        nonce: BigInt(info.nonce!),
        deadline: BigInt(info.deadline!),
      },
    })
    const forged = {
      ...plain,
      extensions: {
        eip2612GasSponsoring: {
          ...extension,
          info: { ...info, signature: forgedSignature },
        },
      },
    }
    const sent = await f.sentBy(facilitator())
    for (const endpoint of ['verify', 'settle'] as const) {
      const answer = await f.post(endpoint, f.body(forged, accepted))
      expect(JSON.stringify(answer.body)).to.include('eip2612_permit_invalid')
    }
    expect(await f.sentBy(facilitator())).to.equal(sent)

    const payeeBefore = await f.tokenBalance(PAYEE)
    const settled = await f.post('settle', f.body(genuine, accepted))
    expect(settled.body).to.deep.include({ success: true })
    expect(await f.tokenBalance(PAYEE)).to.equal(payeeBefore + 1_000_000n)
  })
  it('a sponsored permit never meets another Permit2 payment of the payer in flight: each is refused before any gas (permit2_allowance_in_flight)', async () => {
    // The permit sets the allowance the others were checked against: mined first, it leaves nothing for them, and
    // each would revert on our gas while the payer sent no transaction.
    const rpc = f.chain.rpcUrl
    const payer = f.chain.payers[2]!.address as Address
    const accepted = f.requirements('exact', 1_000_000n)
    const sponsored = await f.pay(2, accepted, { sponsored: true })
    await approvePermit2(rpc, f.asset, payer)
    const inPool = () =>
      waitFor('the settle in the pool', async () =>
        (await hasPendingTransaction(rpc, facilitator())) ? true : undefined,
      )
    const refusedBeforeGas = async (payload: Awaited<ReturnType<typeof f.pay>>) => {
      const sent = await f.sentBy(facilitator())
      for (const endpoint of ['verify', 'settle'] as const) {
        const answer = await f.post(endpoint, f.body(payload, accepted))
        expect(JSON.stringify(answer.body), endpoint).to.include('permit2_allowance_in_flight')
      }
      expect(await f.sentBy(facilitator())).to.equal(sent)
    }
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    try {
      // A plain payment in flight: the sponsored one waits.
      const plain = f.post('settle', f.body(await f.pay(2, accepted), accepted))
      await inPool()
      await refusedBeforeGas(sponsored)
      await anvilRpc(rpc, 'evm_mine')
      expect((await plain).body).to.deep.include({ success: true })
      // The sponsored one in flight: plain ones wait.
      const withPermit = f.post('settle', f.body(sponsored, accepted))
      await inPool()
      await refusedBeforeGas(await f.pay(2, accepted))
      await anvilRpc(rpc, 'evm_mine')
      expect((await withPermit).body).to.deep.include({ success: true })
    } finally {
      await anvilRpc(rpc, 'evm_setAutomine', [true])
    }
    // What they were spared: the permit replaced the payer's unlimited approval, and its payment spent it.
    const after = await f.post('verify', f.body(await f.pay(2, accepted), accepted))
    expect(after.body).to.deep.include({ isValid: false, invalidReason: 'permit2_allowance_required' })
  })
})
