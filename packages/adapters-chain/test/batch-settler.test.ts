import type { EvmAddress as Address, Authorization, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { demoSmartWalletAbi, demoSmartWalletBytecode } from '../src/generated/demo-smart-wallet.js'
import { type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import {
  prefixedSignatureWalletAbi,
  prefixedSignatureWalletBytecode,
} from '../test-fixtures/generated/prefixed-signature-wallet.js'
import {
  deployedContract,
  freshPayer,
  itemOf,
  settled,
  type SettleItem,
  startSettlerChain,
  TOKENS,
  type TokenUnderTest,
} from './batch-settler-calls.js'
import { balanceOf, tokenView, unlockedAccounts } from './demo-token-calls.js'
import { authorizationFrom, nowSeconds, signedBy } from './fixtures.js'

const USED = /authorization is used or canceled$/
const BLACKLISTED = /^Blacklistable: account is blacklisted$/
const PAUSED = /^Pausable: paused$/
const NO_BALANCE = /^ERC20: transfer amount exceeds balance$/
const INVALID_SIGNATURE = /invalid signature$/
const EXPIRED = /authorization is expired$/
const NOT_YET_VALID = /authorization is not yet valid$/

for (const [name, deploy] of TOKENS) {
  describe(`BatchSettler on ${name}: each item's outcome, in its own event (anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let settler: Address
    /** The facilitator's key: deployed the settler, and the one account allowed to call `settle`. */
    let facilitator: Address
    let deployer: Address

    before(async () => {
      ;({ chain, rpc, token, settler } = await startSettlerChain(deploy))
      facilitator = chain.facilitator.address
      ;[deployer] = (await unlockedAccounts(rpc)) as [Address]
    })
    after(async () => {
      rpc?.close()
      await chain?.stop()
    })

    const signed = async (
      payer: LocalAccount,
      to: Address,
      value: bigint,
      overrides: Partial<Authorization> = {},
    ): Promise<SettleItem> =>
      itemOf(await signedBy(payer, token.domain, { ...authorizationFrom(payer, to, value), ...overrides }))
    const settle = (items: ReadonlyArray<SettleItem>) => settled(rpc, settler, facilitator, items)
    const balance = (account: Address) => balanceOf(rpc, token.address, account)
    const used = async (item: SettleItem) =>
      (await tokenView(rpc, token.address, 'authorizationState', [item.from, item.nonce])) as boolean
    const payee = async () => (await freshPayer(token, 0n)).address

    /** One item fails with `reason`; nothing moves and its authorization stays unused (unless it already was). */
    const failsAlone = async (item: SettleItem, reason: RegExp) => {
      const [payerBefore, payeeBefore, wasUsed] = [await balance(item.from), await balance(item.to), await used(item)]
      const { outcomes } = await settle([item])
      expect(outcomes).to.have.length(1)
      expect(outcomes[0]).to.deep.include({ index: 0, authorizer: item.from, nonce: item.nonce, success: false })
      expect(outcomes[0]!.reason).to.match(reason)
      expect([await balance(item.from), await balance(item.to), await used(item)]).to.deep.equal([
        payerBefore,
        payeeBefore,
        wasUsed,
      ])
    }

    it('success: the value moves from payer to payee directly, the authorization is used, the settler holds nothing', async () => {
      const payer = await freshPayer(token, 1_000n)
      const item = await signed(payer, await payee(), 600n)
      const { outcomes } = await settle([item])
      expect(outcomes).to.deep.equal([
        { index: 0, authorizer: payer.address, nonce: item.nonce, success: true, reason: '0x' },
      ])
      expect([
        await balance(payer.address),
        await balance(item.to),
        await balance(settler),
        await used(item),
      ]).to.deep.equal([400n, 600n, 0n, true])
    })

    it('a used nonce: the replayed item fails "authorization is used or canceled"', async () => {
      const item = await signed(await freshPayer(token, 1_000n), await payee(), 100n)
      expect((await settle([item])).outcomes[0]!.success).to.equal(true)
      await failsAlone(item, USED)
      expect(await balance(item.to)).to.equal(100n)
    })

    it('a blacklisted payer, then a blacklisted payee: each item fails "Blacklistable: account is blacklisted"', async () => {
      const fromListed = await signed(await freshPayer(token, 1_000n), await payee(), 100n)
      await token.blacklist(fromListed.from)
      await failsAlone(fromListed, BLACKLISTED)
      const toListed = await signed(await freshPayer(token, 1_000n), await payee(), 100n)
      await token.blacklist(toListed.to)
      await failsAlone(toListed, BLACKLISTED)
    })

    it('a paused token: every item of the batch fails "Pausable: paused", nothing moves; unpaused, the same batch settles', async () => {
      const items: SettleItem[] = []
      for (const value of [1n, 2n, 3n]) items.push(await signed(await freshPayer(token, 1_000n), await payee(), value))
      await token.pause()
      try {
        const { outcomes } = await settle(items)
        expect(outcomes.map((o) => [o.index, o.success])).to.deep.equal([
          [0, false],
          [1, false],
          [2, false],
        ])
        for (const outcome of outcomes) expect(outcome.reason).to.match(PAUSED)
        expect(await Promise.all(items.map((item) => balance(item.to)))).to.deep.equal([0n, 0n, 0n])
      } finally {
        await token.unpause()
      }
      expect((await settle(items)).outcomes.map((o) => o.success)).to.deep.equal([true, true, true])
    })

    it('a balance too small: the item fails "ERC20: transfer amount exceeds balance"', async () => {
      await failsAlone(await signed(await freshPayer(token, 99n), await payee(), 100n), NO_BALANCE)
    })

    it('a bad signature: signed by another key, or of another length (the bytes form), fails "invalid signature…"', async () => {
      const payer = await freshPayer(token, 1_000n)
      const byStranger = await signed(await freshPayer(token, 0n), await payee(), 100n, { from: payer.address })
      await failsAlone(byStranger, INVALID_SIGNATURE)
      const good = await signed(payer, await payee(), 100n)
      await failsAlone({ ...good, signature: `${good.signature}00` }, /invalid signature length$/)
      await failsAlone({ ...good, value: 101n }, INVALID_SIGNATURE)
    })

    it("an expired authorization and one not yet valid fail with the token's reason", async () => {
      const payer = await freshPayer(token, 1_000n)
      await failsAlone(await signed(payer, await payee(), 1n, { validBefore: nowSeconds() - 1n }), EXPIRED)
      await failsAlone(await signed(payer, await payee(), 1n, { validAfter: nowSeconds() + 3_600n }), NOT_YET_VALID)
    })

    it('a mix in one batch: only the bad items fail, each event naming its index, payer, nonce and reason', async () => {
      const seller = await payee()
      const payers: LocalAccount[] = []
      for (let i = 0; i < 6; i++) payers.push(await freshPayer(token, 1_000n))
      const replayed = await signed(payers[1]!, seller, 10n)
      await settle([replayed])
      const listed = await signed(payers[3]!, seller, 10n)
      await token.blacklist(listed.from)
      const items = [
        await signed(payers[0]!, seller, 10n),
        replayed,
        await signed(payers[2]!, seller, 10n),
        listed,
        await signed(payers[4]!, seller, 5_000n),
        await signed(payers[5]!, seller, 10n),
      ]
      const { outcomes } = await settle(items)
      expect(outcomes.map((o) => [o.index, o.authorizer, o.nonce, o.success])).to.deep.equal(
        items.map((item, index) => [index, item.from, item.nonce, [0, 2, 5].includes(index)]),
      )
      for (const [index, reason] of [
        [1, USED],
        [3, BLACKLISTED],
        [4, NO_BALANCE],
      ] as const)
        expect(outcomes[index]!.reason).to.match(reason)
      expect(await balance(seller)).to.equal(10n /* the replayed item's first settle */ + 30n)
      expect(await Promise.all(payers.map((p) => balance(p.address)))).to.deep.equal([
        990n,
        990n,
        990n,
        1_000n,
        1_000n,
        990n,
      ])
    })

    it('contract payers (ERC-1271): a 65-byte signature through the v,r,s form, a 66-byte one through the bytes form', async () => {
      const owner = await freshPayer(token, 0n)
      const walletPaying = async (
        bytecode: Hex,
        abi: typeof demoSmartWalletAbi | typeof prefixedSignatureWalletAbi,
      ) => {
        const wallet = await deployedContract(rpc, deployer, encodeDeployData({ abi, bytecode, args: [owner.address] }))
        await token.mint(wallet, 1_000n)
        return signed({ address: wallet, privateKey: owner.privateKey }, await payee(), 250n)
      }
      const plain = await walletPaying(demoSmartWalletBytecode, demoSmartWalletAbi)
      const prefixed = await walletPaying(prefixedSignatureWalletBytecode, prefixedSignatureWalletAbi)
      const prefixedItem = { ...prefixed, signature: `0x00${prefixed.signature.slice(2)}` as Hex }
      const { outcomes } = await settle([plain, prefixedItem])
      expect(outcomes.map((o) => [o.authorizer, o.success])).to.deep.equal([
        [plain.from, true],
        [prefixed.from, true],
      ])
      expect([await balance(plain.to), await balance(prefixed.to), await balance(plain.from)]).to.deep.equal([
        250n,
        250n,
        750n,
      ])
    })
  })
}
