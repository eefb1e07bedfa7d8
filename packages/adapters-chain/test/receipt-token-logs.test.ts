import type { EvmAddress as Address, BatchItem } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { SETTLER_ITEM_GAS_LIMIT } from '../src/evm/settler/settler-deployment.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { fakeSettlerAbi, fakeSettlerBytecode } from '../test-fixtures/generated/fake-settler.js'
import { deployedContract, freshPayer, TOKENS, type TokenUnderTest } from './batch-settler-calls.js'
import { balanceOf } from './demo-token-calls.js'
import { mined, wrappedPayment } from './erc6492-payments.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const unbacked = /reported settled by .* but the token .* emitted no AuthorizationUsed\(.*\) in it: not paid/

for (const [name, deploy] of TOKENS) {
  describe(`an item counts as paid only with the token's AuthorizationUsed in the receipt (${name}, anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let fake: Address
    before(async () => {
      chain = await startLocalChain({ payers: 0 })
      rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
      token = await deploy(rpc, chain)
      const data = encodeDeployData({
        abi: fakeSettlerAbi,
        bytecode: fakeSettlerBytecode,
        args: [token.address, SETTLER_ITEM_GAS_LIMIT],
      })
      fake = await deployedContract(rpc, chain.facilitator.address, data)
    })
    after(async () => {
      rpc?.close()
      await chain?.stop()
    })

    const payment = async (value: bigint): Promise<BatchItem & { readonly payee: Address }> => {
      const payer = await freshPayer(token, value)
      const payee = privateKeyToAddress(generatePrivateKey()).toLowerCase() as Address
      return { ...(await signedBy(payer, token.domain, authorizationFrom(payer, payee, value))), payee }
    }

    it('a settler that reports ItemSettled(success) for items it never paid: only the item the token logged is paid, each other one fails with why, told at error level', async () => {
      const reports: string[] = []
      const submitter = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
        settler: fake,
        settlerItemGasLimit: SETTLER_ITEM_GAS_LIMIT,
        onUnbackedSuccess: (message) => reports.push(message),
      })
      const [paid, skipped, third] = [await payment(100n), await payment(200n), await payment(300n)]
      // Item 2 repeats item 0: the fake calls the token for it (even index), which refuses a used authorization.
      const items = [paid!, skipped!, paid!, third!]
      const prepared = await right(submitter.prepareBatch!(items))
      const receipt = mined(await right(submitter.send(prepared, 30_000)))
      expect(receipt.succeeded).to.equal(true)
      expect(receipt.items!.map(({ index, succeeded }) => ({ index, succeeded }))).to.deep.equal([
        { index: 0, succeeded: true },
        { index: 1, succeeded: false },
        { index: 2, succeeded: false },
        { index: 3, succeeded: false },
      ])
      for (const item of receipt.items!.slice(1)) expect(item.revertReason).to.match(unbacked)
      expect([
        await balanceOf(rpc, token.address, paid!.payee),
        await balanceOf(rpc, token.address, skipped!.payee),
        await balanceOf(rpc, token.address, third!.payee),
      ]).to.deep.equal([100n, 0n, 0n])
      expect(reports).to.have.length(3)
      expect(reports[0]).to.include(prepared.txHash).and.include('item 1')

      // Read back later by a submitter with no settler configured (another replica, BATCHING=off): judged the same.
      const unconfigured = makeRpcTransferSubmitter({
        rpc,
        token: token.address,
        privateKey: chain.facilitator.privateKey,
      })
      const again = await right(unconfigured.receiptOf([prepared.txHash]))
      expect(again._tag === 'Some' && again.value.items).to.deep.equal(receipt.items)
    })
  })
}

describe("a lone transfer counts as paid only with the token's AuthorizationUsed in its receipt (DemoUsd, anvil)", () => {
  let chain: LocalChain
  let rpc: ChainRpc
  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  it('an ERC-6492 settle sent to a MULTICALL3_ADDRESS without code is mined with status 1 and moves nothing: not paid, with why', async () => {
    const nowhere: Address = '0x000000000000000000000000000000000000ca11'
    const reports: string[] = []
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
      multicall3: nowhere,
      erc6492Factories: [chain.smartWallets.factory],
      onUnbackedSuccess: (message) => reports.push(message),
    })
    const domain = await right(makeRpcTokenReader(rpc, chain.tokenAddress).domain)
    const payee = privateKeyToAddress(generatePrivateKey()).toLowerCase() as Address
    const { authorization, signature } = await wrappedPayment(chain.smartWallets.counterfactual, domain, payee, 1_000n)
    const prepared = await right(submitter.prepare(authorization, signature))
    const receipt = mined(await right(submitter.send(prepared, 30_000)))
    expect(receipt).to.deep.include({ txHash: prepared.txHash, succeeded: false })
    expect(receipt.revertReason).to.match(/emitted no AuthorizationUsed/)
    expect(reports).to.have.length(1)
    expect(await balanceOf(rpc, chain.tokenAddress, payee)).to.equal(0n)
  })

  it('a lone transfer straight to the token is paid, as before', async () => {
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
    })
    const payer = chain.payers[0]!
    const domain = await right(makeRpcTokenReader(rpc, chain.tokenAddress).domain)
    const { authorization, signature } = await signedBy(
      payer,
      domain,
      authorizationFrom(payer, '0x00000000000000000000000000000000000000dd', 5n),
    )
    const receipt = mined(await right(submitter.send(await right(submitter.prepare(authorization, signature)), 30_000)))
    expect(receipt.succeeded).to.equal(true)
  })
})
