import { expect } from 'chai'
import type { LocalSmartWallet } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { anvilRpc, isSettled, receiptOf } from './support/chain-control.js'
import {
  counterfactualWallet as fundedCounterfactualWallet,
  deployAnotherWalletFactory,
} from './support/counterfactual-wallet.js'
import { startCircleUsdcFacilitator, type CircleUsdcFacilitator } from './support/circle-usdc-facilitator.js'
import { PAYEE } from './support/test-facilitator.js'

describe("ERC-6492 payers on Circle's USDC through the real app: an allowed factory settles once through Multicall3, an unlisted one is refused (anvil, Postgres)", function () {
  this.timeout(120_000)
  let f: CircleUsdcFacilitator
  let unlistedFactory: Address
  before(async () => {
    f = await startCircleUsdcFacilitator({}, {}, (chain) => ({ ERC6492_FACTORIES: chain.smartWallets.factory }))
    unlistedFactory = await deployAnotherWalletFactory(f.chain.rpcUrl)
  })
  after(() => f?.stop())

  const rpc = (method: string, params: unknown[]) => anvilRpc(f.chain.rpcUrl, method, params)
  const codeOf = (address: Address) => rpc('eth_getCode', [address, 'latest'])
  const facilitatorNonce = async (block: 'latest' | 'pending') =>
    BigInt((await rpc('eth_getTransactionCount', [f.chain.facilitator.address, block])) as string)

  /** A wallet of `factory`, not deployed, holding the token. */
  const counterfactualWallet = (factory: Address): Promise<LocalSmartWallet> =>
    fundedCounterfactualWallet(f.chain.rpcUrl, factory, f.usdc.mint, 5_000_000n)
  const payment = (wallet: LocalSmartWallet, value = 1_250_000n) =>
    signedPaymentBody({
      payerKey: wallet.ownerPrivateKey,
      payer: wallet.address,
      payTo: PAYEE,
      value,
      network: f.network,
      domain: f.domain,
      erc6492: wallet,
    })

  it('allowed factory: verify valid, settle deploys the wallet and moves the USDC in one transaction, exactly once', async () => {
    const wallet = await counterfactualWallet(f.chain.smartWallets.factory)
    const body = await payment(wallet)
    expect((await f.post('verify', body)).body).to.include({ valid: true, payer: wallet.address })
    expect(await codeOf(wallet.address)).to.equal('0x')

    const payeeBefore = await f.balanceOf(PAYEE)
    const nonceBefore = await facilitatorNonce('latest')
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true, payer: wallet.address })
    expect((await receiptOf(f.chain.rpcUrl, settled.body.txHash as string))?.status).to.equal('0x1')
    expect(await codeOf(wallet.address)).to.not.equal('0x')
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 1_250_000n)
    expect(await f.balanceOf(wallet.address)).to.equal(5_000_000n - 1_250_000n)
    expect(await facilitatorNonce('latest')).to.equal(nonceBefore + 1n)

    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'authorization_already_used' })
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 1_250_000n)
    expect(
      (await f.rows()).filter((row) => row.payer === wallet.address).map((row) => isSettled(row.state)),
    ).to.deep.equal([true])
  })

  it('unlisted factory: verify and settle refused erc6492_factory_not_allowed, nothing broadcast, nothing recorded', async () => {
    const wallet = await counterfactualWallet(unlistedFactory)
    const body = await payment(wallet)
    const nonces = [await facilitatorNonce('latest'), await facilitatorNonce('pending')]
    expect((await f.post('verify', body)).body).to.include({ valid: false, reasonCode: 'erc6492_factory_not_allowed' })
    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'erc6492_factory_not_allowed' })
    expect([await facilitatorNonce('latest'), await facilitatorNonce('pending')]).to.deep.equal(nonces)
    expect(await codeOf(wallet.address)).to.equal('0x')
    expect((await f.rows()).filter((row) => row.payer === wallet.address)).to.have.length(0)
  })

  it('an allowed wallet the issuer blacklisted is refused before any gas, though its deployment would succeed', async () => {
    const wallet = await counterfactualWallet(f.chain.smartWallets.factory)
    await f.usdc.blacklist(wallet.address)
    const body = await payment(wallet)
    const nonces = [await facilitatorNonce('latest'), await facilitatorNonce('pending')]
    expect((await f.post('verify', body)).body).to.include({ valid: false })
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: false })
    expect([await facilitatorNonce('latest'), await facilitatorNonce('pending')]).to.deep.equal(nonces)
    expect(await codeOf(wallet.address)).to.equal('0x')
    await f.usdc.unBlacklist(wallet.address)
    expect((await f.post('settle', body)).body).to.include({ success: true, payer: wallet.address })
  })
})
