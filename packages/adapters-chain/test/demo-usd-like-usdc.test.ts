import type { EvmAddress as Address, Eip712Domain } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import {
  balanceOf,
  fundedAccount,
  mined,
  revertReasonOf,
  signReceiveAuthorization,
  tokenCall,
  tokenView,
  unlockedAccounts,
  withBytes,
  withVrs,
  type Call,
} from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

const BLACKLISTED = 'Blacklistable: account is blacklisted'
const PAUSED = 'Pausable: paused'

describe('DemoUsd: the blacklist and the pause of USDC (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let domain: Eip712Domain
  /** The token's deployer and owner (anvil's first account); `relayer` (its second) sends the authorizations. */
  let owner: Address
  let relayer: Address
  const call = (from: Address, functionName: string, args: ReadonlyArray<unknown> = []): Call =>
    tokenCall(chain.tokenAddress, from, functionName, args)

  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    domain = await right(makeRpcTokenReader(rpc, chain.tokenAddress).domain)
    const [first, second] = await unlockedAccounts(rpc)
    if (!first || !second) throw new Error('anvil has fewer than two unlocked accounts')
    ;[owner, relayer] = [first, second]
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  /**
   * Every way value leaves `payer` for `payee`, each signed or approved beforehand: `transferWithAuthorization` in
   * both forms (sent by the relayer), `receiveWithAuthorization` (sent by the payee), `transfer` (by the payer) and
   * `transferFrom` (by a spender the payer approved).
   */
  const everyTransfer = async (payer: LocalAccount, payee: LocalAccount): Promise<ReadonlyArray<Call>> => {
    const spender = await fundedAccount(rpc, chain, 0n)
    await mined(rpc, call(payer.address, 'approve', [spender.address, 10n]))
    const byTransfer = await signedBy(payer, domain, authorizationFrom(payer, payee.address, 10n))
    const byBytes = await signedBy(payer, domain, authorizationFrom(payer, payee.address, 10n))
    const received = authorizationFrom(payer, payee.address, 10n)
    const receivedSignature = await signReceiveAuthorization(payer.privateKey, domain, received)
    return [
      call(relayer, 'transferWithAuthorization', withVrs(byTransfer.authorization, byTransfer.signature)),
      call(relayer, 'transferWithAuthorization', withBytes(byBytes.authorization, byBytes.signature)),
      call(payee.address, 'receiveWithAuthorization', withVrs(received, receivedSignature)),
      call(payer.address, 'transfer', [payee.address, 10n]),
      call(spender.address, 'transferFrom', [payer.address, payee.address, 10n]),
    ]
  }

  const reasonsOf = (calls: ReadonlyArray<Call>): Promise<ReadonlyArray<string>> =>
    Promise.all(calls.map((c) => revertReasonOf(rpc, c)))

  /** Each call goes through once mined, in turn; the payee ends up with 10 units per call. */
  const allSettle = async (calls: ReadonlyArray<Call>, payee: Address): Promise<void> => {
    const before = await balanceOf(rpc, chain.tokenAddress, payee)
    for (const c of calls) await mined(rpc, c)
    expect(await balanceOf(rpc, chain.tokenAddress, payee)).to.equal(before + 10n * BigInt(calls.length))
  }

  it('blacklist, unBlacklist, pause, unpause and mint refuse anyone but the owner', async () => {
    const stranger = await fundedAccount(rpc, chain, 0n)
    for (const [functionName, args] of [
      ['blacklist', [stranger.address]],
      ['unBlacklist', [stranger.address]],
      ['pause', []],
      ['unpause', []],
      ['mint', [stranger.address, 1n]],
    ] as const) {
      expect(await revertReasonOf(rpc, call(stranger.address, functionName, args)), functionName).to.equal(
        'DemoUsd: caller is not the owner',
      )
    }
    expect(await tokenView(rpc, chain.tokenAddress, 'paused')).to.equal(false)
  })

  it('the owner blacklists and unblacklists an account; isBlacklisted says so', async () => {
    const account = await fundedAccount(rpc, chain, 0n)
    expect(await tokenView(rpc, chain.tokenAddress, 'isBlacklisted', [account.address])).to.equal(false)
    await mined(rpc, call(owner, 'blacklist', [account.address]))
    expect(await tokenView(rpc, chain.tokenAddress, 'isBlacklisted', [account.address])).to.equal(true)
    await mined(rpc, call(owner, 'unBlacklist', [account.address]))
    expect(await tokenView(rpc, chain.tokenAddress, 'isBlacklisted', [account.address])).to.equal(false)
  })

  for (const role of ['payer', 'payee'] as const) {
    it(`a blacklisted ${role}: every transfer reverts "Blacklistable: account is blacklisted"; unblacklisted, each settles`, async () => {
      const [payer, payee] = [await fundedAccount(rpc, chain, 1_000n), await fundedAccount(rpc, chain, 0n)]
      const calls = await everyTransfer(payer, payee)
      const listed = role === 'payer' ? payer.address : payee.address
      await mined(rpc, call(owner, 'blacklist', [listed]))
      expect(await reasonsOf(calls)).to.deep.equal(calls.map(() => BLACKLISTED))
      await mined(rpc, call(owner, 'unBlacklist', [listed]))
      await allSettle(calls, payee.address)
    })
  }

  it('a blacklisted spender cannot transferFrom, nor anyone approve it', async () => {
    const [payer, payee] = [await fundedAccount(rpc, chain, 1_000n), await fundedAccount(rpc, chain, 0n)]
    const transferFrom = (await everyTransfer(payer, payee))[4]!
    await mined(rpc, call(owner, 'blacklist', [transferFrom.from]))
    expect(await revertReasonOf(rpc, transferFrom)).to.equal(BLACKLISTED)
    expect(await revertReasonOf(rpc, call(payer.address, 'approve', [transferFrom.from, 1n]))).to.equal(BLACKLISTED)
  })

  it('paused: every transfer, a cancellation and a mint revert "Pausable: paused", even for a blacklisted payer; unpaused, each settles', async () => {
    const [payer, payee, blacklisted] = [
      await fundedAccount(rpc, chain, 1_000n),
      await fundedAccount(rpc, chain, 0n),
      await fundedAccount(rpc, chain, 1_000n),
    ]
    const calls = await everyTransfer(payer, payee)
    const fromBlacklisted = await signedBy(blacklisted, domain, authorizationFrom(blacklisted, payee.address, 10n))
    await mined(rpc, call(owner, 'blacklist', [blacklisted.address]))
    await mined(rpc, call(owner, 'pause'))
    try {
      expect(await tokenView(rpc, chain.tokenAddress, 'paused')).to.equal(true)
      expect(await reasonsOf(calls)).to.deep.equal(calls.map(() => PAUSED))
      expect(
        await revertReasonOf(
          rpc,
          call(relayer, 'transferWithAuthorization', withVrs(fromBlacklisted.authorization, fromBlacklisted.signature)),
        ),
      ).to.equal(PAUSED)
      const nonce = fromBlacklisted.authorization.nonce
      expect(
        await revertReasonOf(rpc, call(relayer, 'cancelAuthorization', [payer.address, nonce, `0x${'00'.repeat(65)}`])),
      ).to.equal(PAUSED)
      expect(await revertReasonOf(rpc, call(owner, 'mint', [payer.address, 1n]))).to.equal(PAUSED)
    } finally {
      await mined(rpc, call(owner, 'unpause'))
    }
    expect(await tokenView(rpc, chain.tokenAddress, 'paused')).to.equal(false)
    await allSettle(calls, payee.address)
  })
})
