import { expect } from 'chai'
import { demoSmartWalletAbi, demoSmartWalletBytecode, demoUsdAbi } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { encodeDeployData, encodeFunctionData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { anvilRpc, receiptOf } from './support/chain-control.js'
import { waitFor } from './support/wait-for.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'

/** Sends a transaction from anvil's first (unlocked) account, the demo token's owner, and waits for it to be mined. */
const sendFromOwner = async (f: TestFacilitator, tx: { to?: Address; data: `0x${string}` }) => {
  const [owner] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as Address[]
  const hash = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
    { from: owner, gas: '0x2dc6c0', ...tx },
  ])) as string
  type Receipt = { status: string; contractAddress: Address | null }
  return waitFor(
    'the transaction mined',
    async () => ((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) as Receipt | null) ?? undefined,
  )
}

describe('a smart-wallet payer (ERC-1271, deployed): verified through its contract, settled once (real app, anvil)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  before(async () => {
    f = await startTestFacilitator()
  })
  after(() => f?.stop())

  it("the wallet's owner signs; verify asks the wallet, settle moves the value; another key is refused", async () => {
    const ownerKey = generatePrivateKey()
    const deployed = await sendFromOwner(f, {
      data: encodeDeployData({
        abi: demoSmartWalletAbi,
        bytecode: demoSmartWalletBytecode,
        args: [privateKeyToAddress(ownerKey)],
      }),
    })
    const wallet = deployed.contractAddress!.toLowerCase() as Address
    await sendFromOwner(f, {
      to: f.chain.tokenAddress,
      data: encodeFunctionData({ abi: demoUsdAbi, functionName: 'mint', args: [wallet, 1_000_000n] }),
    })
    const payment = (key: `0x${string}`) =>
      signedPaymentBody({
        payerKey: key,
        payer: wallet,
        payTo: PAYEE,
        value: 250_000n,
        network: f.network,
        domain: f.domain,
      }).then((body) => {
        body.paymentRequirements.amount = '250000'
        return body
      })

    const stranger = await payment(generatePrivateKey())
    expect((await f.post('verify', stranger)).body).to.include({
      valid: false,
      reasonCode: 'invalid_exact_evm_payload_signature',
    })

    const body = await payment(ownerKey)
    expect((await f.post('verify', body)).body).to.include({ valid: true, payer: wallet })
    const payeeBefore = await f.balanceOf(PAYEE)
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true, payer: wallet })
    expect((await receiptOf(f.chain.rpcUrl, settled.body.txHash as string))?.status).to.equal('0x1')
    expect(await f.balanceOf(wallet)).to.equal(750_000n)
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 250_000n)
    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'authorization_already_used' })
  })
})
