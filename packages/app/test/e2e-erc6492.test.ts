import { expect } from 'chai'
import type { LocalSmartWallet } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { signedPaymentBody } from '../src/tools/demo-payment.js'
import { anvilRpc, isSettled, receiptOf } from './support/chain-control.js'
import { startUpHarness } from './support/start-up-harness.js'
import {
  counterfactualWallet as fundedCounterfactualWallet,
  deployAnotherWalletFactory,
} from './support/counterfactual-wallet.js'
import { PAYEE, startTestFacilitator, type TestFacilitator } from './support/test-facilitator.js'
import { asX402V2 } from './support/x402-v2-body.js'

describe('ERC-6492 payers (wallets not deployed yet) through the real app: the factory allowlist, one Multicall3 settle (anvil, Postgres)', function () {
  this.timeout(120_000)
  let f: TestFacilitator
  /** Another DemoSmartWalletFactory: the same code, but not on ERC6492_FACTORIES. */
  let unlistedFactory: Address
  before(async () => {
    f = await startTestFacilitator({}, {}, undefined, (chain) => ({ ERC6492_FACTORIES: chain.smartWallets.factory }))
    unlistedFactory = await deployAnotherWalletFactory(f.chain.rpcUrl)
  })
  after(() => f?.stop())

  const rpc = (method: string, params: unknown[]) => anvilRpc(f.chain.rpcUrl, method, params)
  const codeOf = (address: Address) => rpc('eth_getCode', [address, 'latest'])
  const facilitatorNonce = async () =>
    BigInt((await rpc('eth_getTransactionCount', [f.chain.facilitator.address, 'latest'])) as string)

  /** A wallet of `factory`, not deployed, holding the token. */
  const counterfactualWallet = (factory: Address): Promise<LocalSmartWallet> =>
    fundedCounterfactualWallet(f.chain.rpcUrl, factory, f.chain.mint, 1_000_000n)
  const payment = (wallet: LocalSmartWallet, value = 300_000n) =>
    signedPaymentBody({
      payerKey: wallet.ownerPrivateKey,
      payer: wallet.address,
      payTo: PAYEE,
      value,
      network: f.network,
      domain: f.domain,
      erc6492: wallet,
    })

  it('allowed factory: verify valid, settle deploys the wallet and pays once in one transaction; a second settle is refused', async () => {
    const wallet = f.chain.smartWallets.counterfactual
    expect(await codeOf(wallet.address)).to.equal('0x')
    const body = await payment(wallet)
    expect((await f.post('verify', body)).body).to.include({ valid: true, payer: wallet.address })
    expect(await codeOf(wallet.address)).to.equal('0x')

    const payeeBefore = await f.balanceOf(PAYEE)
    const nonceBefore = await facilitatorNonce()
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true, payer: wallet.address })
    const receipt = await receiptOf(f.chain.rpcUrl, settled.body.txHash as string)
    expect(receipt?.status).to.equal('0x1')
    expect(((await rpc('eth_getTransactionByHash', [settled.body.txHash])) as { to: string }).to).to.equal(
      f.chain.smartWallets.multicall3,
    )
    expect(await codeOf(wallet.address)).to.not.equal('0x')
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 300_000n)
    expect(await facilitatorNonce()).to.equal(nonceBefore + 1n)

    expect((await f.post('settle', body)).body).to.include({ success: false, errorCode: 'authorization_already_used' })
    expect(await f.balanceOf(PAYEE)).to.equal(payeeBefore + 300_000n)
    expect(await facilitatorNonce()).to.equal(nonceBefore + 1n)
    const rows = (await f.rows()).filter((row) => row.payer === wallet.address)
    expect(rows.map((row) => isSettled(row.state))).to.deep.equal([true])
  })

  it('unlisted factory: verify and settle refused erc6492_factory_not_allowed, naming the factory; nothing broadcast', async () => {
    const wallet = await counterfactualWallet(unlistedFactory)
    const body = await payment(wallet)
    const nonceBefore = await facilitatorNonce()
    const verified = await f.post('verify', body)
    expect(verified.status).to.equal(200)
    expect(verified.body).to.include({ valid: false, reasonCode: 'erc6492_factory_not_allowed' })
    expect(verified.body.invalidReason).to.include(unlistedFactory).and.to.include('ERC6492_FACTORIES')
    const settled = await f.post('settle', body)
    expect(settled.status).to.equal(200)
    expect(settled.body).to.include({ success: false, errorCode: 'erc6492_factory_not_allowed' })
    expect(await facilitatorNonce()).to.equal(nonceBefore)
    expect(await codeOf(wallet.address)).to.equal('0x')
    expect((await f.rows()).filter((row) => row.payer === wallet.address)).to.have.length(0)
  })

  it('a wrapped signature of a wallet already deployed settles (its inner signature, ERC-1271), whatever the factory', async () => {
    const deployed = f.chain.smartWallets.deployed
    for (const factory of [deployed.factory, unlistedFactory]) {
      const body = await payment({ ...deployed, factory }, 10_000n)
      expect((await f.post('verify', body)).body).to.include({ valid: true, payer: deployed.address })
      const settled = await f.post('settle', body)
      expect(settled.body).to.include({ success: true, payer: deployed.address })
      expect((await receiptOf(f.chain.rpcUrl, settled.body.txHash as string))?.status).to.equal('0x1')
      // Deployed already: straight to the token, no factory called (its calldata would be the wrapper's to choose).
      expect(((await rpc('eth_getTransactionByHash', [settled.body.txHash])) as { to: string }).to).to.equal(f.asset)
    }
  })

  it('a malformed wrapper is a rule 7 refusal (200 with the reason), not a 400 or 500', async () => {
    const body = await payment(await counterfactualWallet(f.chain.smartWallets.factory))
    const signature = body.paymentPayload.payload.signature
    // The factory word's upper bytes set: ends with the magic, but is no abi.encode(address, bytes, bytes).
    body.paymentPayload.payload.signature = `0x${'ff'.repeat(12)}${signature.slice(2 + 24)}`
    for (const endpoint of ['verify', 'settle'] as const) {
      const answer = await f.post(endpoint, body)
      expect(answer.status).to.equal(200)
      expect(answer.body).to.include(
        endpoint === 'verify'
          ? { valid: false, reasonCode: 'invalid_exact_evm_payload_signature' }
          : { success: false, errorCode: 'invalid_exact_evm_payload_signature' },
      )
      expect(JSON.stringify(answer.body)).to.include('malformed ERC-6492 wrapper')
    }
  })

  it('the x402 v2 dialect carries the same: an allowed counterfactual wallet settles, an unlisted factory is refused by name', async () => {
    const allowed = await counterfactualWallet(f.chain.smartWallets.factory)
    const body = asX402V2(await payment(allowed))
    expect((await f.post('verify', body)).body).to.include({ isValid: true, payer: allowed.address })
    const settled = await f.post('settle', body)
    expect(settled.body).to.include({ success: true, payer: allowed.address })
    expect(await codeOf(allowed.address)).to.not.equal('0x')

    const unlisted = asX402V2(await payment(await counterfactualWallet(unlistedFactory)))
    const nonceBefore = await facilitatorNonce()
    expect((await f.post('verify', unlisted)).body).to.include({
      isValid: false,
      invalidReason: 'erc6492_factory_not_allowed',
    })
    expect((await f.post('settle', unlisted)).body).to.include({
      success: false,
      errorReason: 'erc6492_factory_not_allowed',
      transaction: '',
    })
    expect(await facilitatorNonce()).to.equal(nonceBefore)
  })
})

describe('start-up with ERC6492_FACTORIES set: Multicall3 and each factory must have code (real app, anvil)', function () {
  this.timeout(120_000)
  const h = startUpHarness()

  it('refuses to start when MULTICALL3_ADDRESS or a listed factory has no code, naming it; starts when both have', async () => {
    const empty = '0x00000000000000000000000000000000000c0de0'
    expect(await h.refusal({ ERC6492_FACTORIES: h.chain.smartWallets.factory, MULTICALL3_ADDRESS: empty })).to.equal(
      `configuration: ERC6492_FACTORIES is set but MULTICALL3_ADDRESS ${empty} has no code on this chain: ` +
        `deploy Multicall3 there, set MULTICALL3_ADDRESS to it, or unset ERC6492_FACTORIES`,
    )
    expect(await h.refusal({ ERC6492_FACTORIES: `${h.chain.smartWallets.factory},${empty}` })).to.equal(
      `configuration: ERC6492_FACTORIES lists ${empty}, which has no code on this chain`,
    )
    // No factory allowed: Multicall3 is not needed.
    await (await h.start({ MULTICALL3_ADDRESS: empty })).stop()
    await (await h.start({ ERC6492_FACTORIES: h.chain.smartWallets.factory })).stop()
  })
})
