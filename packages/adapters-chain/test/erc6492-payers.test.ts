import type { EvmAddress as Address, Authorization, Eip712Domain, Hex, SignatureCheck } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeErc1271Check } from '../src/evm/wallets/erc1271-check.js'
import { makeErc6492SignatureCheck } from '../src/evm/wallets/erc6492-signature-check.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import type { LocalSmartWallet } from '../src/testing/local-smart-wallets.js'
import { readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { makeSecp256k1SignatureVerifier } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { createAccountCall, mined, wrappedPayment } from './erc6492-payments.js'
import { right } from './fixtures.js'

const detail = (check: SignatureCheck): string =>
  check._tag === 'SignatureInvalid' ? check.detail : `not invalid: ${check._tag}`

describe('ERC-6492 payers: verified by a deployless call, settled through Multicall3 (DemoUsd, anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let reader: RpcTokenReader
  let domain: Eip712Domain
  let submitter: RpcTransferSubmitter
  let counterfactual: LocalSmartWallet
  const payee: Address = '0x00000000000000000000000000000000000000c4'
  const codeOf = async (address: Address) => rpc.read('eth_getCode', [address, 'latest'])
  const verifierAllowing = (allowedFactories: ReadonlyArray<Address>) => {
    const erc1271 = makeErc1271Check(rpc)
    return makeSecp256k1SignatureVerifier(
      reader.domain,
      erc1271,
      makeErc6492SignatureCheck({ rpc, allowedFactories, erc1271 }),
    )
  }
  const check = (allowed: ReadonlyArray<Address>, a: Authorization, signature: Hex) =>
    right(verifierAllowing(allowed).checkAuthorization(a, signature))

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    reader = makeRpcTokenReader(rpc, chain.tokenAddress)
    domain = await right(reader.domain)
    counterfactual = chain.smartWallets.counterfactual
    submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
      erc6492Factories: [chain.smartWallets.factory],
    })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  it("validates an undeployed wallet's owner signature by deploying it inside a call: valid, and nothing deployed", async () => {
    const { authorization, signature } = await wrappedPayment(counterfactual, domain, payee, 1_000n)
    expect(await check([chain.smartWallets.factory], authorization, signature)).to.deep.equal({
      _tag: 'SignatureValid',
    })
    expect(await codeOf(counterfactual.address)).to.equal('0x')
  })

  it('refuses a factory not on the allowlist (before any call of it), whatever the signature', async () => {
    const { authorization, signature } = await wrappedPayment(counterfactual, domain, payee, 1_000n)
    expect(await check([], authorization, signature)).to.deep.equal({
      _tag: 'FactoryNotAllowed',
      factory: chain.smartWallets.factory,
    })
    expect(await check(['0x00000000000000000000000000000000000000aa'], authorization, signature)).to.deep.equal({
      _tag: 'FactoryNotAllowed',
      factory: chain.smartWallets.factory,
    })
  })

  it('refuses, with why: another key, a factory call that reverts, a factory call that deploys another wallet, a malformed wrapper', async () => {
    const allowed = [chain.smartWallets.factory]
    const stranger = await wrappedPayment(counterfactual, domain, payee, 1_000n, { key: generatePrivateKey() })
    expect(detail(await check(allowed, stranger.authorization, stranger.signature))).to.match(
      /once deployed by its factory, does not accept the inner signature/,
    )
    // DemoSmartWallet refuses the zero owner: the factory's CREATE2 reverts.
    const reverting = await wrappedPayment(counterfactual, domain, payee, 1_000n, {
      factoryCalldata: createAccountCall('0x0000000000000000000000000000000000000000', 0n),
    })
    expect(detail(await check(allowed, reverting.authorization, reverting.signature))).to.match(
      /reverts when called with the wrapper's calldata/,
    )
    const elsewhere = await wrappedPayment(counterfactual, domain, payee, 1_000n, {
      factoryCalldata: createAccountCall(privateKeyToAddress(generatePrivateKey()), 7n),
    })
    expect(detail(await check(allowed, elsewhere.authorization, elsewhere.signature))).to.match(
      /does not deploy the payer/,
    )
    const good = await wrappedPayment(counterfactual, domain, payee, 1_000n)
    const truncated: Hex = `0x${good.signature.slice(2 + 64 * 2)}`
    expect(detail(await check(allowed, good.authorization, truncated))).to.match(/^malformed ERC-6492 wrapper: /)
  })

  it('a wrapped signature of a wallet already deployed is its inner signature under ERC-1271: no factory needed', async () => {
    const deployed = chain.smartWallets.deployed
    const { authorization, signature } = await wrappedPayment(
      { ...deployed, factory: '0x00000000000000000000000000000000000000bb' },
      domain,
      payee,
      1_000n,
    )
    expect(await check([], authorization, signature)).to.deep.equal({ _tag: 'SignatureValid' })
    const stranger = await wrappedPayment(deployed, domain, payee, 1_000n, { key: generatePrivateKey() })
    expect(detail(await check([], stranger.authorization, stranger.signature))).to.match(
      /does not accept the inner signature of its ERC-6492 wrapper/,
    )
  })

  it('settles in one Multicall3 transaction: the wallet deployed, the payee paid once; a replay reverts whole', async () => {
    const wallet = { ...counterfactual }
    const { authorization, signature } = await wrappedPayment(wallet, domain, payee, 250_000n)
    const before = (await right(reader.payerState(payee, authorization.nonce))).balance
    const prepared = await right(submitter.prepare(authorization, signature))
    const receipt = mined(await right(submitter.send(prepared, 10_000)))
    expect(receipt.succeeded).to.equal(true)
    const tx = (await rpc.read('eth_getTransactionByHash', [receipt.txHash])) as { to: string }
    expect(tx.to).to.equal(chain.smartWallets.multicall3)
    expect(await codeOf(wallet.address)).to.not.equal('0x')
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(before + 250_000n)
    expect((await right(reader.payerState(wallet.address, authorization.nonce))).authorizationUsed).to.equal(true)

    // The same call again: the factory returns the existing wallet, the transfer reverts, so the whole transaction
    // does.
    const nonceBefore = await readQuantity(rpc, 'eth_getTransactionCount', [chain.facilitator.address, 'latest'])
    const replay = mined(await right(submitter.send(await right(submitter.prepare(authorization, signature)), 10_000)))
    expect(replay.succeeded).to.equal(false)
    expect(await readQuantity(rpc, 'eth_getTransactionCount', [chain.facilitator.address, 'latest'])).to.equal(
      nonceBefore + 1n,
    )
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(before + 250_000n)

    // Deployed now: a new wrapped payment from it still settles through Multicall3 (the factory call is idempotent).
    const again = await wrappedPayment(wallet, domain, payee, 1_000n)
    expect(await check([chain.smartWallets.factory], again.authorization, again.signature)).to.deep.equal({
      _tag: 'SignatureValid',
    })
    expect(
      mined(await right(submitter.send(await right(submitter.prepare(again.authorization, again.signature)), 10_000)))
        .succeeded,
    ).to.equal(true)
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(before + 251_000n)
  })

  it('a wrapped signature whose factory is not allowed goes to the token alone, with the inner signature', async () => {
    const deployed = chain.smartWallets.deployed
    const plain = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey })
    const { authorization, signature } = await wrappedPayment(deployed, domain, payee, 2_000n)
    const receipt = mined(await right(plain.send(await right(plain.prepare(authorization, signature)), 10_000)))
    expect(receipt.succeeded).to.equal(true)
    const tx = (await rpc.read('eth_getTransactionByHash', [receipt.txHash])) as { to: string }
    expect(tx.to).to.equal(chain.tokenAddress)
  })
})
