import {
  HexBytes,
  type EvmAddress as Address,
  type Authorization,
  type Eip712Domain,
  type Hex,
  type PreparedTransfer,
} from '@x402-facilitator/domain'
import { expect } from 'chai'
import { decodeFunctionResult, encodeFunctionData, keccak256, toHex } from 'viem'
import { generatePrivateKey, sign } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { demoSmartWalletAbi } from '../src/generated/demo-smart-wallet.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { decodeAnswer } from '../src/evm/rpc/rpc-failure.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { SECP256K1_N } from '../src/evm/signing/secp256k1-signature-verifier.js'
import {
  balanceOf,
  fundedAccount,
  fundedSmartWallet,
  mined,
  revertReasonOf,
  signCancelAuthorization,
  signReceiveAuthorization,
  tokenCall,
  tokenView,
  unlockedAccounts,
  withBytes,
  type Call,
} from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const INVALID_SIGNATURE = 'DemoUsd: invalid signature'

/** The malleable twin of a 65-byte signature: s' = n − s, v flipped; recovers to the same key, but is high-s. */
const highSTwin = (signature: Hex): Hex => {
  const twinS = (SECP256K1_N - BigInt(`0x${signature.slice(66, 130)}`)).toString(16).padStart(64, '0')
  return `0x${signature.slice(2, 66)}${twinS}${signature.endsWith('1b') ? '1c' : '1b'}`
}

describe('DemoUsd: the bytes-signature overloads, with ERC-1271 for a contract signer (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let domain: Eip712Domain
  /**
   * Sends the authorizations: anvil's second unlocked account, so the facilitator's own nonces stay the submitter's.
   */
  let relayer: Address
  /** The key that owns `wallet`, a DemoSmartWallet holding tokens. */
  let walletOwner: LocalAccount
  let wallet: Address
  /** The wallet as a payer: its address, its owner's key (what the wallet accepts). */
  let walletPayer: LocalAccount
  const payee: Address = '0x00000000000000000000000000000000000000ee'
  const call = (functionName: string, args: ReadonlyArray<unknown>): Call =>
    tokenCall(chain.tokenAddress, relayer, functionName, args)
  const balance = (account: Address): Promise<bigint> => balanceOf(rpc, chain.tokenAddress, account)
  const used = (authorizer: Address, nonce: Hex): Promise<unknown> =>
    tokenView(rpc, chain.tokenAddress, 'authorizationState', [authorizer, nonce])

  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    domain = await right(makeRpcTokenReader(rpc, chain.tokenAddress).domain)
    const [deployer, second] = await unlockedAccounts(rpc)
    if (!deployer || !second) throw new Error('anvil has fewer than two unlocked accounts')
    relayer = second
    walletOwner = await fundedAccount(rpc, chain, 0n)
    wallet = await fundedSmartWallet(rpc, chain, deployer, walletOwner.address, 1_000_000n)
    walletPayer = { address: wallet, privateKey: walletOwner.privateKey }
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  it("the wallet answers ERC-1271's magic value for its owner's signature over a digest, 0xffffffff for any other", async () => {
    const digest = keccak256(toHex('any digest'))
    const answer = async (signature: Hex): Promise<Hex> => {
      const data = encodeFunctionData({
        abi: demoSmartWalletAbi,
        functionName: 'isValidSignature',
        args: [digest, signature],
      })
      const result = decodeAnswer(
        HexBytes,
        'a call result',
        await rpc.read('eth_call', [{ to: wallet, data }, 'latest']),
      )
      return decodeFunctionResult({ abi: demoSmartWalletAbi, functionName: 'isValidSignature', data: result })
    }
    expect(await answer(await sign({ hash: digest, privateKey: walletOwner.privateKey, to: 'hex' }))).to.equal(
      '0x1626ba7e',
    )
    expect(await answer(await sign({ hash: digest, privateKey: generatePrivateKey(), to: 'hex' }))).to.equal(
      '0xffffffff',
    )
    expect(await answer('0x')).to.equal('0xffffffff')
  })

  /** Sends `transferWithAuthorization(…, bytes signature)` and checks that exactly `value` moved to the payee. */
  const settlesThroughBytes = async (authorization: Authorization, signature: Hex): Promise<void> => {
    const before = await balance(payee)
    await mined(rpc, call('transferWithAuthorization', withBytes(authorization, signature)))
    expect(await balance(payee)).to.equal(before + authorization.value)
    expect(await used(authorization.from, authorization.nonce)).to.equal(true)
  }

  it("an EOA's 65-byte signature settles through the bytes overload; its high-s twin, a short one and another key's are refused", async () => {
    const payer = await fundedAccount(rpc, chain, 1_000n)
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 100n))
    expect(
      await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, highSTwin(signature)))),
    ).to.equal('DemoUsd: invalid signature s value')
    expect(
      await revertReasonOf(
        rpc,
        call('transferWithAuthorization', withBytes(authorization, `0x${signature.slice(2, 130)}`)),
      ),
    ).to.equal('DemoUsd: invalid signature length')
    const impostor = await signedBy({ address: payer.address, privateKey: generatePrivateKey() }, domain, authorization)
    expect(
      await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, impostor.signature))),
    ).to.equal(INVALID_SIGNATURE)
    await settlesThroughBytes(authorization, signature)
  })

  it('a smart wallet pays through the bytes overload called directly: its owner signs, the token asks the wallet (ERC-1271); a replay is refused', async () => {
    const { authorization, signature } = await signedBy(
      walletPayer,
      domain,
      authorizationFrom(walletPayer, payee, 250n),
    )
    const walletBefore = await balance(wallet)
    await settlesThroughBytes(authorization, signature)
    expect(walletBefore - (await balance(wallet))).to.equal(250n)
    expect(await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, signature)))).to.equal(
      'DemoUsd: authorization is used or canceled',
    )
  })

  it("a wrong ERC-1271 signature is refused: another key's, a tampered field, malformed bytes; nothing moves", async () => {
    const { authorization, signature } = await signedBy(walletPayer, domain, authorizationFrom(walletPayer, payee, 7n))
    const byStranger = await signedBy({ address: wallet, privateKey: generatePrivateKey() }, domain, authorization)
    const walletBefore = await balance(wallet)
    for (const [args, what] of [
      [withBytes(authorization, byStranger.signature), "another key's"],
      [withBytes({ ...authorization, value: 8n }, signature), 'a tampered value'],
      [withBytes(authorization, `${signature}00`), 'a 66-byte signature'],
      [withBytes(authorization, '0x'), 'an empty signature'],
    ] as const) {
      expect(await revertReasonOf(rpc, call('transferWithAuthorization', args)), what).to.equal(INVALID_SIGNATURE)
    }
    expect(
      await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, highSTwin(signature)))),
      'high s',
    ).to.equal(INVALID_SIGNATURE)
    expect(await balance(wallet)).to.equal(walletBefore)
    expect(await used(wallet, authorization.nonce)).to.equal(false)
  })

  it('a contract without ERC-1271 is asked, not ecrecover: no signature can spend what it holds', async () => {
    await chain.mint(chain.tokenAddress, 5n)
    const asToken = { address: chain.tokenAddress, privateKey: walletOwner.privateKey }
    const { authorization, signature } = await signedBy(asToken, domain, authorizationFrom(asToken, payee, 5n))
    expect(await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, signature)))).to.equal(
      INVALID_SIGNATURE,
    )
  })

  it('receiveWithAuthorization and cancelAuthorization take the bytes form, for the wallet and for an EOA', async () => {
    const receiver = await fundedAccount(rpc, chain, 0n)
    for (const payer of [walletPayer, await fundedAccount(rpc, chain, 1_000n)]) {
      const received = authorizationFrom(payer, receiver.address, 3n)
      const receiveSignature = await signReceiveAuthorization(payer.privateKey, domain, received)
      const before = await balance(receiver.address)
      await mined(
        rpc,
        tokenCall(
          chain.tokenAddress,
          receiver.address,
          'receiveWithAuthorization',
          withBytes(received, receiveSignature),
        ),
      )
      expect(await balance(receiver.address)).to.equal(before + 3n)

      const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 4n))
      const cancelSignature = await signCancelAuthorization(
        payer.privateKey,
        domain,
        payer.address,
        authorization.nonce,
      )
      await mined(rpc, call('cancelAuthorization', [payer.address, authorization.nonce, cancelSignature]))
      expect(await used(payer.address, authorization.nonce)).to.equal(true)
      expect(
        await revertReasonOf(rpc, call('transferWithAuthorization', withBytes(authorization, signature))),
      ).to.equal('DemoUsd: authorization is used or canceled')
    }
  })

  it("the v, r, s entry points still work: the project's submitter settles an EOA's payment and the wallet's (v, r, s packed, as USDC v2.2 does)", async () => {
    const submitter = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: chain.facilitator.privateKey,
    })
    const settle = async (prepared: PreparedTransfer): Promise<void> => {
      const outcome = await right(submitter.send(prepared, 10_000))
      expect(outcome._tag === 'Mined' && outcome.receipt.succeeded).to.equal(true)
    }
    for (const payer of [await fundedAccount(rpc, chain, 1_000n), walletPayer]) {
      const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 11n))
      const before = await balance(payee)
      await settle(await right(submitter.prepare(authorization, signature)))
      expect(await balance(payee)).to.equal(before + 11n)
    }
  })
})
