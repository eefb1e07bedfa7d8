import {
  HexBytes,
  type EvmAddress as Address,
  type Eip712Domain,
  type Hex,
  type SendOutcome,
} from '@x402-facilitator/domain'
import { expect } from 'chai'
import { decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { decodeAnswer, readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { makeSecp256k1SignatureVerifier } from '../src/evm/signing/secp256k1-signature-verifier.js'
import { deployCircleUsdc, fiatTokenProxyAbi, fiatTokenV2_2Abi, type CircleUsdc } from '../src/testing/index.js'
import { authorizationFrom, randomNonce, right, signedBy } from './fixtures.js'

const mined = (outcome: SendOutcome) => {
  if (outcome._tag !== 'Mined') throw new Error(`expected Mined, got ${outcome._tag}`)
  return outcome.receipt
}

/** What a promise failed with; throws when it did not fail. */
const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

const PAYER_BALANCE = 1_000_000_000n

// Circle's FiatTokenV2_2 behind FiatTokenProxy, deployed as on mainnet (test-fixtures/circle-usdc/SOURCE.md), read and
// settled through by the chain adapter exactly as DemoUsd is.
describe('Circle USDC, FiatTokenV2_2 behind FiatTokenProxy (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let usdc: CircleUsdc
  let reader: RpcTokenReader
  let domain: Eip712Domain
  let submitter: RpcTransferSubmitter
  const payee: Address = '0x00000000000000000000000000000000000000dd'

  before(async () => {
    chain = await startLocalChain({ payers: 4 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    usdc = await deployCircleUsdc(rpc)
    for (const payer of chain.payers) await usdc.mint(payer.address, PAYER_BALANCE)
    reader = makeRpcTokenReader(rpc, usdc.address)
    domain = await right(reader.domain)
    submitter = makeRpcTransferSubmitter({ rpc, token: usdc.address, privateKey: chain.facilitator.privateKey })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  /** `eth_call` of `data` on the token, as `from`; the returned bytes. */
  const call = async (data: Hex, from?: Address): Promise<Hex> =>
    decodeAnswer(
      HexBytes,
      'an eth_call result',
      await rpc.read('eth_call', [{ from, to: usdc.address, data }, 'latest']),
    )
  const read = async (fn: { functionName: 'currency' | 'symbol' | 'decimals' }) =>
    decodeFunctionResult({
      abi: fiatTokenV2_2Abi,
      ...fn,
      data: await call(encodeFunctionData({ abi: fiatTokenV2_2Abi, ...fn })),
    })

  const sendSigned = async (payer: LocalAccount, to: Address, value: bigint) => {
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, to, value))
    const prepared = await right(submitter.prepare(authorization, signature))
    return { authorization, signature, prepared, receipt: mined(await right(submitter.send(prepared, 10_000))) }
  }

  it('is deployed as mainnet: the proxy over the implementation, the admin kept out of the token', async () => {
    expect(await read({ functionName: 'symbol' })).to.equal('USDC')
    expect(await read({ functionName: 'currency' })).to.equal('USD')
    expect(await read({ functionName: 'decimals' })).to.equal(6)
    const implementation = await call(
      encodeFunctionData({ abi: fiatTokenProxyAbi, functionName: 'implementation' }),
      usdc.roles.proxyAdmin,
    )
    expect(
      decodeFunctionResult({
        abi: fiatTokenProxyAbi,
        functionName: 'implementation',
        data: implementation,
      }).toLowerCase(),
    ).to.equal(usdc.implementation)
    const byAdmin = await failureOf(
      call(encodeFunctionData({ abi: fiatTokenV2_2Abi, functionName: 'symbol' }), usdc.roles.proxyAdmin),
    )
    expect(String(byAdmin)).to.match(/Cannot call fallback function from the proxy admin/)
    const initialize = encodeFunctionData({
      abi: fiatTokenV2_2Abi,
      functionName: 'initialize',
      args: ['X', 'X', 'X', 6, payee, payee, payee, payee],
    })
    const reinitialized = await failureOf(
      rpc.read('eth_call', [{ to: usdc.implementation, data: initialize }, 'latest']),
    )
    expect(String(reinitialized)).to.match(/FiatToken: contract is already initialized/)
  })

  it('has no EIP-5267 eip712Domain(): the reader falls back to name() and version(), "USD Coin" and "2"', async () => {
    const eip712Domain = encodeFunctionData({
      abi: parseAbi(['function eip712Domain() view returns (bytes1)']),
      functionName: 'eip712Domain',
    })
    expect(String(await failureOf(call(eip712Domain)))).to.match(/revert/i)
    expect(usdc.eip712).to.deep.equal({ name: 'USD Coin', version: '2' })
    expect(domain).to.deep.equal({ ...usdc.eip712, chainId: 31337n, verifyingContract: usdc.address })
    expect(await right(reader.tokenInfo)).to.deep.equal({ address: usdc.address, symbol: 'USDC', decimals: 6 })
  })

  it('reads balance and authorization state, in one deployless call and in two calls alike', async () => {
    const payer = chain.payers[0]!
    const nonce = randomNonce()
    const perPair = makeRpcTokenReader(rpc, usdc.address, { deploylessReads: false })
    const expected = { balance: PAYER_BALANCE, authorizationUsed: false }
    expect(await right(reader.payerState(payer.address, nonce))).to.deep.equal(expected)
    expect(await right(perPair.payerState(payer.address, nonce))).to.deep.equal(expected)
    expect(await right(reader.payerState(payee, nonce))).to.deep.equal({ balance: 0n, authorizationUsed: false })
  })

  it('the signature verifier accepts a payment signed over its domain, refuses one signed over another name', async () => {
    const verifier = makeSecp256k1SignatureVerifier(reader.domain)
    const payer = chain.payers[0]!
    const good = await signedBy(payer, domain, authorizationFrom(payer, payee, 1_000n))
    expect(await right(verifier.checkAuthorization(good.authorization, good.signature))).to.deep.equal({
      _tag: 'SignatureValid',
      byKey: true,
    })
    const wrongName = await signedBy(payer, { ...domain, name: 'USDC' }, authorizationFrom(payer, payee, 1_000n))
    expect((await right(verifier.checkAuthorization(wrongName.authorization, wrongName.signature)))._tag).to.equal(
      'SignatureInvalid',
    )
  })

  it('the transfer submitter settles a payment: value moved, the authorization used, a replay reverted', async () => {
    const payer = chain.payers[0]!
    const { authorization, signature, prepared, receipt } = await sendSigned(payer, payee, 1_234_567n)
    expect(receipt).to.include({ txHash: prepared.txHash, succeeded: true })
    // To a fresh payee: ~102 600 gas on this token (~82 200 on DemoUsd), under today's fixed 120 000 limit.
    expect(receipt.gasUsed > 95_000n && receipt.gasUsed < 120_000n).to.equal(true)
    expect(await right(reader.payerState(payer.address, authorization.nonce))).to.deep.equal({
      balance: PAYER_BALANCE - 1_234_567n,
      authorizationUsed: true,
    })
    expect((await right(reader.payerState(payee, authorization.nonce))).balance).to.equal(1_234_567n)

    const replay = mined(await right(submitter.send(await right(submitter.prepare(authorization, signature)), 10_000)))
    expect(replay).to.include({ succeeded: false, revertReason: 'FiatTokenV2: authorization is used or canceled' })
  })

  // The submitter alone signs and sends what it is given, and the token reverts it at the facilitator's cost: rule 10's
  // trial (payment-trials.test.ts) is what refuses these before any gas.
  describe('the submitter alone broadcasts payments the token refuses, and they revert (rule 10 refuses them first)', () => {
    const revertsWith = async (payer: LocalAccount, to: Address, reason: string) => {
      const nonceBefore = await readQuantity(rpc, 'eth_getTransactionCount', [chain.facilitator.address, 'latest'])
      const balanceBefore = (await right(reader.payerState(payer.address, randomNonce()))).balance
      const { receipt } = await sendSigned(payer, to, 5_000n)
      expect(receipt).to.include({ succeeded: false, revertReason: reason })
      expect(receipt.gasUsed > 0n).to.equal(true)
      expect(await readQuantity(rpc, 'eth_getTransactionCount', [chain.facilitator.address, 'latest'])).to.equal(
        nonceBefore + 1n,
      )
      expect((await right(reader.payerState(payer.address, randomNonce()))).balance).to.equal(balanceBefore)
    }

    it('a blacklisted payer: reverted "Blacklistable: account is blacklisted"', async () => {
      const payer = chain.payers[1]!
      await usdc.blacklist(payer.address)
      await revertsWith(payer, payee, 'Blacklistable: account is blacklisted')
      await usdc.unBlacklist(payer.address)
      expect((await sendSigned(payer, payee, 1n)).receipt.succeeded).to.equal(true)
    })

    it('a blacklisted payee: reverted "Blacklistable: account is blacklisted"', async () => {
      const blacklistedPayee: Address = '0x00000000000000000000000000000000000000bd'
      await usdc.blacklist(blacklistedPayee)
      await revertsWith(chain.payers[2]!, blacklistedPayee, 'Blacklistable: account is blacklisted')
    })

    it('a paused token: reverted "Pausable: paused"', async () => {
      await usdc.pause()
      try {
        await revertsWith(chain.payers[3]!, payee, 'Pausable: paused')
      } finally {
        await usdc.unpause()
      }
    })
  })
})
