import { expect } from 'chai'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { demoSmartWalletAbi, demoSmartWalletBytecode } from '@x402-facilitator/adapters-chain'
import { fiatTokenV2_2Abi } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { decodeFunctionData, encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc, receiptOf, SETTLED_STATES } from './support/chain-control.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import {
  callsOf,
  facilitatorNonces,
  freshAddress,
  paymentBody,
  paymentFromPayer,
  sendFromAnvilAccount,
  transfersTo,
} from './support/payments-on-chain.js'

/** ERC-1271 `isValidSignature(bytes32,bytes)`. */
const IS_VALID_SIGNATURE = '0x1626ba7e'

// Issue 17 part 4: the app as an operator runs it on mainnet, against Circle's FiatTokenV2_2 behind FiatTokenProxy
// (compiled from test-fixtures/circle-usdc, deployed as Circle does) instead of the project's DemoUsd.
describe('end to end on Circle USDC (FiatTokenV2_2 behind FiatTokenProxy): verify and settle, exactly once', function () {
  this.timeout(120_000)
  let f: CircleUsdcFacilitator
  before(async () => {
    f = await startCircleUsdcFacilitator()
  })
  after(() => f?.stop())

  it('the app reads the token as a client signs for it: "USD Coin", version "2", USDC, 6 decimals', async () => {
    expect(f.asset).to.equal(f.usdc.address)
    expect(f.domain).to.deep.equal({
      ...f.usdc.eip712,
      chainId: BigInt(f.chain.chainId),
      verifyingContract: f.usdc.address,
    })
    expect(f.running.policy.asset).to.include({ symbol: 'USDC', decimals: 6 })
  })

  it('a valid payment: verified, settled, the payee paid exactly once, the journal row confirmed; a second settle refused', async () => {
    const payer = f.chain.payers[0]!.address
    const payee = freshAddress()
    const payerBefore = await f.balanceOf(payer)
    const body = await paymentFromPayer(f, 0, payee, 1_250_000n)

    const verified = await f.post('verify', body)
    expect(verified.status).to.equal(200)
    expect(verified.body).to.include({ valid: true, payer })

    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: true, payer })
    const receipt = await receiptOf(f.chain.rpcUrl, settled.body.txHash as string)
    expect(receipt).to.include({ status: '0x1' })
    expect(Number(receipt!.blockNumber)).to.equal(settled.body.blockNumber)
    const rows = (await f.rows()).filter((row) => row.payee === payee)
    expect(rows).to.have.length(1)
    expect(rows[0]).to.include({
      tx_hash: settled.body.txHash,
      payer,
      value: '1250000',
      block_number: String(settled.body.blockNumber),
    })
    expect(rows[0]?.state).to.be.oneOf(SETTLED_STATES)

    const again = await f.post('settle', body)
    expect(again.status).to.equal(200)
    expect(again.body).to.include({
      success: false,
      errorCode: 'authorization_already_used',
      txHash: settled.body.txHash,
    })
    expect(again.body.settlementState).to.be.oneOf(SETTLED_STATES)
    expect(await f.balanceOf(payee)).to.equal(1_250_000n)
    expect(await f.balanceOf(payer)).to.equal(payerBefore - 1_250_000n)
    expect(await transfersTo(f, payee)).to.equal(1)
    expect((await f.rows()).filter((row) => row.payee === payee)).to.have.length(1)
  })

  it('an ERC-1271 smart wallet holding USDC: verified through the wallet, settled once, the token asking the wallet on-chain', async () => {
    const ownerKey = generatePrivateKey()
    const deployed = await sendFromAnvilAccount(f, {
      data: encodeDeployData({
        abi: demoSmartWalletAbi,
        bytecode: demoSmartWalletBytecode,
        args: [privateKeyToAddress(ownerKey)],
      }),
    })
    const wallet = deployed.contractAddress!.toLowerCase() as Address
    await f.usdc.mint(wallet, 1_000_000n)
    const payee = freshAddress()

    const byStranger = await paymentBody(f, {
      payerKey: generatePrivateKey(),
      payer: wallet,
      payTo: payee,
      value: 250_000n,
    })
    expect((await f.post('verify', byStranger)).body).to.include({
      valid: false,
      reasonCode: 'invalid_exact_evm_payload_signature',
    })

    const body = await paymentBody(f, { payerKey: ownerKey, payer: wallet, payTo: payee, value: 250_000n })
    expect((await f.post('verify', body)).body).to.include({ valid: true, payer: wallet })
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true, payer: wallet })
    const txHash = settled.body.txHash as string
    expect((await receiptOf(f.chain.rpcUrl, txHash))?.status).to.equal('0x1')

    // v2.2 takes a contract's signature through SignatureChecker (both overloads end in the `bytes` path): the
    // transaction calls transferWithAuthorization on the proxy, and the token asks the wallet (ERC-1271) on-chain.
    const tx = (await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionByHash', [txHash])) as {
      to: string
      input: `0x${string}`
    }
    expect(tx.to).to.equal(f.usdc.address)
    expect(decodeFunctionData({ abi: fiatTokenV2_2Abi, data: tx.input }).functionName).to.equal(
      'transferWithAuthorization',
    )
    const askedWallet = (await callsOf(f, txHash)).filter(
      (call) => call.to?.toLowerCase() === wallet && call.input?.startsWith(IS_VALID_SIGNATURE),
    )
    expect(askedWallet).to.have.length(1)

    expect(await f.balanceOf(wallet)).to.equal(750_000n)
    expect(await f.balanceOf(payee)).to.equal(250_000n)
    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'authorization_already_used' })
    expect(await transfersTo(f, payee)).to.equal(1)
  })

  describe('through the official x402 v2 client packages (@x402/core, @x402/evm)', () => {
    const caip2 = () => `eip155:${f.chain.chainId}` as `${string}:${string}`
    /** The client signs over what the requirements' `extra` says: the token's EIP-712 name and version. */
    const requirements = (payTo: Address) => ({
      scheme: 'exact',
      network: caip2(),
      amount: '300000',
      asset: f.usdc.address,
      payTo,
      maxTimeoutSeconds: 60,
      extra: { name: f.domain.name, version: f.domain.version },
    })
    const pay = (payer: number, accepted: ReturnType<typeof requirements>) =>
      new x402Client()
        .register(
          'eip155:*',
          new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(f.chain.payers[payer]!.privateKey))),
        )
        .setSpendControls({ allowedAssets: [{ network: caip2(), asset: f.usdc.address }] })
        .createPaymentPayload({ x402Version: 2, resource: { url: 'https://api.example/paid' }, accepts: [accepted] })

    it('a payment the client signs over "USD Coin" version "2" is verified and settled on USDC', async () => {
      const facilitator = new HTTPFacilitatorClient({ url: f.base })
      const supported = await facilitator.getSupported()
      expect(supported.kinds[0]?.extra).to.deep.include({ name: 'USD Coin', version: '2', asset: f.usdc.address })
      const accepted = requirements(freshAddress())
      const payload = await pay(1, accepted)
      expect(await facilitator.verify(payload, accepted)).to.deep.include({
        isValid: true,
        payer: f.chain.payers[1]!.address,
      })
      const settled = await facilitator.settle(payload, accepted)
      expect(settled).to.deep.include({ success: true, network: caip2() })
      expect((await receiptOf(f.chain.rpcUrl, settled.transaction))?.status).to.equal('0x1')
      expect(await f.balanceOf(accepted.payTo)).to.equal(300_000n)
    })

    it('a blacklisted payer: the client reads payer_blacklisted from verify and settle (HTTP 200), nothing broadcast', async () => {
      const facilitator = new HTTPFacilitatorClient({ url: f.base })
      const payer = f.chain.payers[2]!.address
      const accepted = requirements(freshAddress())
      const payload = await pay(2, accepted)
      const nonces = await facilitatorNonces(f)
      await f.usdc.blacklist(payer)
      try {
        const verified = await facilitator.verify(payload, accepted)
        const settled = await facilitator.settle(payload, accepted)
        expect({
          verified: [verified.isValid, verified.invalidReason],
          settled: [settled.success, settled.errorReason, settled.transaction],
          nonces: await facilitatorNonces(f),
        }).to.deep.equal({
          verified: [false, 'payer_blacklisted'],
          settled: [false, 'payer_blacklisted', ''],
          nonces,
        })
      } finally {
        await f.usdc.unBlacklist(payer)
      }
    })
  })
})
