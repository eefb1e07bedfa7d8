import { expect } from 'chai'
import { encodeFunctionData, parseAbi, parseSignature, type Hex } from 'viem'
import { signedPaymentBody } from '../src/demo-payment.js'
import { anvilRpc, hasPendingTransaction, receiptOf } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

const TRANSFER_WITH_AUTHORIZATION = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])
const ELSEWHERE = '0x00000000000000000000000000000000000e15e0'

/**
 * A payer signs two authorizations with one nonce: 5,000 to the resource server's payee (sent to us) and 1 to someone
 * else, which they get mined first. Ours reverts on the used nonce, and the payee was not paid: the answer must be a
 * refusal, never a success naming the other transaction (that would grant the resource for 1 unit;
 * docs/ARCHITECTURE.md §5.4).
 */
describe('a payer front-runs our transfer with another authorization of the same nonce (real app, anvil)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ RECEIPT_TIMEOUT_SECONDS: '10' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  it('ours reverts and the payee is unpaid: refused, the row not settled, nothing granted', async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const payeeBefore = await f.balanceOf(PAYEE)
    const body = await f.payment({ value: 5_000n })
    body.paymentRequirements.amount = '5000'
    body.paymentRequirements.maxTimeoutSeconds = 10
    const { authorization } = body.paymentPayload.payload
    const answer = f.post('settle', body)
    await waitFor('our transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )

    // The payer's other authorization: the same nonce, 1 unit to someone else, sent with a far higher tip.
    const other = await signedPaymentBody({
      payerKey: f.chain.payers[0]!.privateKey,
      payer: f.chain.payers[0]!.address,
      payTo: ELSEWHERE,
      value: 1n,
      nonce: authorization.nonce as Hex,
      network: f.network,
      domain: f.domain,
    })
    const signed = other.paymentPayload.payload
    const { v, r, s } = parseSignature(signed.signature as Hex)
    const data = encodeFunctionData({
      abi: TRANSFER_WITH_AUTHORIZATION,
      functionName: 'transferWithAuthorization',
      args: [
        signed.authorization.from as Hex,
        signed.authorization.to as Hex,
        BigInt(signed.authorization.value),
        BigInt(signed.authorization.validAfter),
        BigInt(signed.authorization.validBefore),
        signed.authorization.nonce as Hex,
        Number(v),
        r,
        s,
      ],
    })
    const [frontRunner] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as string[]
    const frontRun = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      {
        from: frontRunner,
        to: f.asset,
        data,
        gas: '0x30d40',
        maxFeePerGas: '0x174876e800',
        maxPriorityFeePerGas: '0x174876e800',
      },
    ])) as string
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    expect((await receiptOf(f.chain.rpcUrl, frontRun))?.status).to.equal('0x1')

    const res = await answer
    expect(res.body, JSON.stringify(res.body)).not.to.include({ success: true })
    expect(res.body.txHash ?? res.body.transaction).not.to.equal(frontRun)
    const row = (await f.rows()).find((r) => r.nonce === authorization.nonce.toLowerCase())
    expect(row?.tx_hash, JSON.stringify(row)).not.to.equal(frontRun)
    expect(['confirmed', 'final']).not.to.include(row?.state)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore)
  })
})
