import { expect } from 'chai'
import { encodeFunctionData, parseAbi, parseSignature, type Hex } from 'viem'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { anvilRpc, hasPendingTransaction, receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator, type PaymentBody } from './support/test-facilitator.js'

interface PoolTransaction {
  readonly hash: string
  readonly to: string
  readonly input: string
}

const TRANSFER_WITH_AUTHORIZATION = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])
const ELSEWHERE = '0x00000000000000000000000000000000000e15e0'

describe("another transaction with our payment's nonce is mined before our pending transfer (real app, anvil)", function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator({ RECEIPT_TIMEOUT_SECONDS: '10' })
  })
  after(() => f?.stop())
  afterEach(() => anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]))

  /** A settle of 5,000 posted with mining off, once our transfer waits in the pool: its body, answer and transfer. */
  const settleLeftInPool = async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [false])
    const body = await f.payment({ value: 5_000n })
    body.paymentRequirements.amount = '5000'
    body.paymentRequirements.maxTimeoutSeconds = 10
    const answer = f.post('settle', body)
    await waitFor('our transfer in the pool', async () =>
      (await hasPendingTransaction(f.chain.rpcUrl, f.chain.facilitator.address)) ? true : undefined,
    )
    const pool = (await anvilRpc(f.chain.rpcUrl, 'txpool_content', [])) as {
      pending: Record<string, Record<string, PoolTransaction>>
    }
    const ours = Object.values(
      Object.entries(pool.pending).find(
        ([from]) => from.toLowerCase() === f.chain.facilitator.address.toLowerCase(),
      )![1],
    )[0]!
    return { body, answer, ours }
  }

  /** `data` sent to `to` with a far higher tip than ours, then a block mined: it goes first. Its hash. */
  const sentFirst = async (to: string, data: string): Promise<string> => {
    const [sender] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as string[]
    const hash = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      { from: sender, to, data, gas: '0x30d40', maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0x174876e800' },
    ])) as string
    await anvilRpc(f.chain.rpcUrl, 'evm_mine')
    return hash
  }

  /** The payer's other authorization: the same nonce as `body`'s, 1 unit to someone else; its calldata. */
  const otherAuthorizationCall = async (body: PaymentBody): Promise<Hex> => {
    const other = await signedPaymentBody({
      payerKey: f.chain.payers[0]!.privateKey,
      payer: f.chain.payers[0]!.address,
      payTo: ELSEWHERE,
      value: 1n,
      nonce: body.paymentPayload.payload.authorization.nonce as Hex,
      network: f.network,
      domain: f.domain,
    })
    const { signature, authorization: a } = other.paymentPayload.payload
    const { v, r, s } = parseSignature(signature as Hex)
    return encodeFunctionData({
      abi: TRANSFER_WITH_AUTHORIZATION,
      functionName: 'transferWithAuthorization',
      args: [
        a.from as Hex,
        a.to as Hex,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as Hex,
        Number(v),
        r,
        s,
      ],
    })
  }

  it('a copy of ours from the mempool: ours reverts, the payee was paid, success with the copy, the journal names it', async () => {
    const payeeBefore = await f.balanceOf(PAYEE)
    const { body, answer, ours } = await settleLeftInPool()
    // The copier resends the same calldata (the payer's signed authorization).
    const copy = await sentFirst(ours.to, ours.input)

    expect((await receiptOf(f.chain.rpcUrl, copy))?.status).to.equal('0x1')
    expect((await receiptOf(f.chain.rpcUrl, ours.hash))?.status).to.equal('0x0')
    const res = await answer
    expect(res.status).to.equal(200)
    expect(res.body).to.include({ success: true, txHash: copy })
    const row = (await f.rows()).find(
      (r) => r.payer === body.paymentPayload.payload.authorization.from && r.value === '5000',
    )
    expect(row).to.include({ tx_hash: copy })
    expect(row?.state).to.be.oneOf(SETTLED_STATES)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 5_000n)
  })

  /**
   * A payer signs two authorizations with one nonce and gets the other (1 unit to someone else) mined first: ours
   * reverts on the used nonce and the payee was not paid. A success naming the other transaction would grant the
   * resource for 1 unit (docs/ARCHITECTURE.md §5.4).
   */
  it("the payer's other authorization of the same nonce: refused, the row not settled, nothing granted", async () => {
    const payeeBefore = await f.balanceOf(PAYEE)
    const { body, answer } = await settleLeftInPool()
    const frontRun = await sentFirst(f.asset, await otherAuthorizationCall(body))
    expect((await receiptOf(f.chain.rpcUrl, frontRun))?.status).to.equal('0x1')

    const res = await answer
    expect(res.body, JSON.stringify(res.body)).not.to.include({ success: true })
    expect(res.body.txHash ?? res.body.transaction).not.to.equal(frontRun)
    const nonce = body.paymentPayload.payload.authorization.nonce.toLowerCase()
    const row = (await f.rows()).find((r) => r.nonce === nonce)
    expect(row?.tx_hash, JSON.stringify(row)).not.to.equal(frontRun)
    expect(['confirmed', 'final']).not.to.include(row?.state)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore)
  })
})
