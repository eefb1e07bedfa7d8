import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeFunctionData, numberToHex, toEventSelector } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeErc1271Check } from '../src/evm/wallets/erc1271-check.js'
import { makeErc6492SignatureCheck } from '../src/evm/wallets/erc6492-signature-check.js'
import { demoSmartWalletFactoryAbi } from '../src/generated/demo-smart-wallet-factory.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import type { LocalSmartWallet } from '../src/testing/local-smart-wallets.js'
import { makeSecp256k1SignatureVerifier } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { deployCircleUsdc, type CircleUsdc } from '../src/testing/circle-usdc-deployment.js'
import { mined, wrappedPayment } from './erc6492-payments.js'
import { right } from './fixtures.js'

const WALLET_CREATED = toEventSelector('WalletCreated(address,address,uint256)')

describe('Circle USDC: a counterfactual smart wallet pays (ERC-6492), deployed and paid through Multicall3 (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let usdc: CircleUsdc
  let reader: RpcTokenReader
  let domain: Eip712Domain
  const payee: Address = '0x00000000000000000000000000000000000000d6'

  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    usdc = await deployCircleUsdc(rpc)
    reader = makeRpcTokenReader(rpc, usdc.address)
    domain = await right(reader.domain)
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  it('verify accepts it (allowed factory), settle deploys the wallet exactly once and pays the payee once', async () => {
    const { factory } = chain.smartWallets
    const ownerPrivateKey = generatePrivateKey()
    const args = [privateKeyToAddress(ownerPrivateKey), 42n] as const
    const address = (await rpc.read('eth_call', [
      { to: factory, data: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'getAddress', args }) },
      'latest',
    ])) as string
    const wallet: LocalSmartWallet = {
      address: `0x${address.slice(-40)}`,
      ownerPrivateKey,
      factory,
      factoryCalldata: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'createAccount', args }),
    }
    await usdc.mint(wallet.address, 1_000_000n)
    const { authorization, signature } = await wrappedPayment(wallet, domain, payee, 400_000n)

    const erc1271 = makeErc1271Check(rpc)
    const verifier = makeSecp256k1SignatureVerifier(
      reader.domain,
      erc1271,
      makeErc6492SignatureCheck({ rpc, allowedFactories: [factory], erc1271 }),
    )
    expect(await right(verifier.checkAuthorization(authorization, signature))).to.deep.equal({ _tag: 'SignatureValid' })

    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: usdc.address,
      privateKey: chain.facilitator.privateKey,
      erc6492Factories: [factory],
    })
    const receipt = mined(await right(submitter.send(await right(submitter.prepare(authorization, signature)), 10_000)))
    expect(receipt.succeeded).to.equal(true)
    // Deploy + transfer to a fresh payee on USDC: ~373 000 gas (MULTICALL3_SETTLE_GAS_LIMIT's comment cites this).
    expect(receipt.gasUsed > 300_000n && receipt.gasUsed < 450_000n, `gas used ${receipt.gasUsed}`).to.equal(true)
    expect(await rpc.read('eth_getCode', [wallet.address, 'latest'])).to.not.equal('0x')
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(400_000n)
    expect((await right(reader.payerState(wallet.address, authorization.nonce))).balance).to.equal(600_000n)

    // A second settle of the same authorization reverts whole: no second deployment, no second payment.
    expect(
      mined(await right(submitter.send(await right(submitter.prepare(authorization, signature)), 10_000))).succeeded,
    ).to.equal(false)
    const created = (await rpc.read('eth_getLogs', [
      {
        address: factory,
        topics: [WALLET_CREATED, `0x${wallet.address.slice(2).padStart(64, '0')}`],
        fromBlock: '0x0',
        toBlock: numberToHex(receipt.blockNumber + 10n),
      },
    ])) as unknown[]
    expect(created).to.have.length(1)
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(400_000n)
  })
})
