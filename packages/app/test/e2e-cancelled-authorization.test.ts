import { expect } from 'chai'
import {
  CANONICAL_MULTICALL3_ADDRESS,
  eip3009TokenAbi,
  multicall3Abi,
  signTransferAuthorization,
} from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Authorization, Hex } from '@x402-facilitator/domain'
import { encodeFunctionData, parseSignature } from 'viem'
import { anvilRpc, FAULT_TIMINGS, hasPendingTransaction, pooledFrom } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { cancelAuthorization, sendAs } from './support/payer-actions.js'
import { PAYEE } from './support/test-facilitator.js'

const metric = async (f: CircleUsdcFacilitator, name: string): Promise<number> => {
  const line = (await (await fetch(`${new URL(f.base).origin}/metrics`)).text())
    .split('\n')
    .find((l) => l.startsWith(`${name} `))
  return line === undefined ? Number.NaN : Number(line.split(' ')[1])
}

/** Payer `index`'s `transferWithAuthorization` of these terms, as calldata any account may send. */
const transferCall = async (f: CircleUsdcFacilitator, index: number, terms: Omit<Authorization, 'from'>) => {
  const payer = f.chain.payers[index]!
  const authorization = { ...terms, from: payer.address }
  const signature = await signTransferAuthorization({ privateKey: payer.privateKey, domain: f.domain, authorization })
  const { v, r, s } = parseSignature(signature)
  const { from, to, value, validAfter, validBefore, nonce } = authorization
  return encodeFunctionData({
    abi: eip3009TokenAbi,
    functionName: 'transferWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, Number(v), r, s],
  })
}

const randomNonce = (): Hex => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`

/**
 * docs/ARCHITECTURE.md §5.5 on Circle's USDC through the real app: `authorizationState` is true after
 * `cancelAuthorization` as after a transfer, so only the token's logs tell a payment settled elsewhere from one the
 * payer cancelled. A row whose authorization the payer cancels before our transaction lands ends `cancelled`.
 */
describe('an authorization the payer cancels before our transaction lands (real app, Circle USDC)', function () {
  this.timeout(120_000)
  let f: CircleUsdcFacilitator
  const logLines: string[] = []
  before(async () => {
    f = await startCircleUsdcFacilitator(
      { ...FAULT_TIMINGS, RECEIPT_TIMEOUT_SECONDS: '1', LOG_LEVEL: 'warn' },
      {},
      undefined,
      (line) => logLines.push(line),
    )
  })
  after(async () => {
    await anvilRpc(f.chain.rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined)
    await f?.stop()
  })

  it('ends cancelled (not settled elsewhere), the payee unpaid, alerted at error level and counted; the lookup says so', async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address as Address
    const paidBefore = await f.balanceOf(PAYEE)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    const body = await f.payment({ payer: 0, value: 1_000_000n })
    body.paymentRequirements.maxTimeoutSeconds = 1
    const { from, nonce } = body.paymentPayload.payload.authorization
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(202)
    await waitFor('our transfer in the pool', async () =>
      (await hasPendingTransaction(rpc, facilitator)) ? true : undefined,
    )
    const sentNonce = BigInt(
      ((await anvilRpc(rpc, 'eth_getTransactionByHash', [settled.body.txHash])) as { nonce: string }).nonce,
    )

    // The payer cancels; our transaction never lands: the facilitator's nonce goes to another transaction.
    await cancelAuthorization(f, 0, nonce as `0x${string}`)
    await sendAs(f, facilitator, { to: facilitator, nonce: sentNonce })
    await anvilRpc(rpc, 'evm_mine')
    await anvilRpc(rpc, 'evm_setAutomine', [true])

    const row = await waitFor('the row ended by recovery', async () => {
      const found = (await f.rows()).find((r) => r.payer === from.toLowerCase() && r.nonce === nonce.toLowerCase())
      return found !== undefined && !['claimed', 'submitted'].includes(String(found.state)) ? found : undefined
    })
    expect(row.state).to.equal('cancelled')
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore)
    const lookup = (await (await fetch(`${f.base}/settlements?payer=${from}&nonce=${nonce}`)).json()) as Record<
      string,
      unknown
    >
    expect(lookup.state).to.equal('cancelled')
    expect(await metric(f, `facilitator_cancelled_authorizations_total{network="eip155:${f.chain.chainId}"}`)).to.equal(
      1,
    )
    const alert = logLines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.msg.includes('cancel'))
    expect(alert, 'an error-level log line').to.include({ level: 50 })
    // The same payment again is refused, naming the end state.
    const again = await f.post('settle', body)
    expect(again.body).to.include({ success: false })
  })

  it('one transfer is one payment: a multicall using three waiting nonces and paying the payee once ends all three cancelled, none answered success', async () => {
    const rpc = f.chain.rpcUrl
    const facilitator = f.chain.facilitator.address as Address
    const paidBefore = await f.balanceOf(PAYEE)
    await anvilRpc(rpc, 'evm_setAutomine', [false])
    const bodies = [await f.payment({ payer: 1, value: 5_000n }), await f.payment({ payer: 1, value: 5_000n })]
    bodies.push(await f.payment({ payer: 1, value: 5_000n }))
    for (const body of bodies) expect((await f.post('settle', body)).status).to.equal(202)
    await waitFor('our three transfers in the pool', async () =>
      (await pooledFrom(rpc, facilitator)).length === 3 ? true : undefined,
    )

    // The payer's one transaction, ahead of ours: each waiting nonce used by an authorization paying the payer 1
    // unit, and one fresh authorization paying the payee the amount once.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600)
    const payer = f.chain.payers[1]!.address as Address
    const terms = { validAfter: 0n, validBefore }
    const decoys = bodies.map((body) =>
      transferCall(f, 1, {
        ...terms,
        to: payer,
        value: 1n,
        nonce: body.paymentPayload.payload.authorization.nonce as Hex,
      }),
    )
    const fresh = transferCall(f, 1, { ...terms, to: PAYEE, value: 5_000n, nonce: randomNonce() })
    const calls = await Promise.all([...decoys, fresh])
    const [sender] = (await anvilRpc(rpc, 'eth_accounts', [])) as Address[]
    await sendAs(f, sender!, {
      to: CANONICAL_MULTICALL3_ADDRESS,
      data: encodeFunctionData({
        abi: multicall3Abi,
        functionName: 'aggregate3',
        args: [calls.map((callData) => ({ target: f.asset, allowFailure: false, callData }))],
      }),
    })
    await anvilRpc(rpc, 'evm_mine')
    await anvilRpc(rpc, 'evm_setAutomine', [true])

    const nonces = bodies.map((b) => b.paymentPayload.payload.authorization.nonce.toLowerCase())
    const rows = await waitFor('the three rows ended by recovery', async () => {
      const found = (await f.rows()).filter((r) => nonces.includes(String(r.nonce)))
      return found.length === 3 && found.every((r) => !['claimed', 'submitted'].includes(String(r.state)))
        ? found
        : undefined
    })
    expect(rows.map((r) => r.state)).to.deep.equal(['cancelled', 'cancelled', 'cancelled'])
    expect(await f.balanceOf(PAYEE)).to.equal(paidBefore + 5_000n)
    for (const body of bodies) expect((await f.post('settle', body)).body).to.include({ success: false })
  })
})
