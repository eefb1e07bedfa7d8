import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, encodeFunctionData } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { LocalChain } from '../src/testing/local-chain.js'
import { SETTLER_ITEM_GAS_LIMIT } from '../src/evm/settler/settler-deployment.js'
import { gasBurningWalletAbi, gasBurningWalletBytecode } from '../test-fixtures/generated/gas-burning-wallet.js'
import { reentrantWalletAbi, reentrantWalletBytecode } from '../test-fixtures/generated/reentrant-wallet.js'
import { revertingWalletAbi, revertingWalletBytecode } from '../test-fixtures/generated/reverting-wallet.js'
import {
  deployedContract,
  freshPayer,
  FULL_BOUND,
  itemOf,
  settleCall,
  settled,
  type SettleItem,
  startSettlerChain,
  TOKENS,
  type TokenUnderTest,
} from './batch-settler-calls.js'
import { balanceOf, mined, revertReasonOf, tokenView, unlockedAccounts } from './demo-token-calls.js'
import { authorizationFrom, randomNonce, signedBy } from './fixtures.js'

/** Any 65 bytes: the wallets below never look at it. */
const JUNK_SIGNATURE: Hex = `0x${'ab'.repeat(65)}`

for (const [name, deploy] of TOKENS) {
  describe(`BatchSettler on ${name}: a payer wallet that reverts, burns gas or re-enters fails only its own item (anvil)`, () => {
    let chain: LocalChain
    let rpc: ChainRpc
    let token: TokenUnderTest
    let settler: Address
    let facilitator: Address
    let deployer: Address
    const seller: Address = '0x00000000000000000000000000000000000000dd'

    before(async () => {
      ;({ chain, rpc, token, settler } = await startSettlerChain(deploy))
      facilitator = chain.facilitator.address
      ;[deployer] = (await unlockedAccounts(rpc)) as [Address]
    })
    after(async () => {
      rpc?.close()
      await chain?.stop()
    })

    const goodItem = async (): Promise<SettleItem> => {
      const payer = await freshPayer(token, 1_000n)
      return itemOf(await signedBy(payer, token.domain, authorizationFrom(payer, seller, 100n)))
    }
    /**
     * A wallet deployed from `data`, holding tokens, paying the seller with a signature it will never check honestly.
     */
    const walletItem = async (data: Hex): Promise<SettleItem> => {
      const wallet = await deployedContract(rpc, deployer, data)
      await token.mint(wallet, 1_000n)
      return {
        ...authorizationFrom({ address: wallet, privateKey: '0x' }, seller, 100n),
        gas: FULL_BOUND,
        signature: JUNK_SIGNATURE,
      }
    }
    const balance = (account: Address) => balanceOf(rpc, token.address, account)

    it('a reverting wallet (4 KiB of revert data) and a gas-burning one fail alone; the honest items around them settle', async () => {
      const reverting = await walletItem(
        encodeDeployData({ abi: revertingWalletAbi, bytecode: revertingWalletBytecode }),
      )
      const burning = await walletItem(
        encodeDeployData({ abi: gasBurningWalletAbi, bytecode: gasBurningWalletBytecode }),
      )
      const items = [await goodItem(), reverting, await goodItem(), burning, await goodItem()]
      const sellerBefore = await balance(seller)
      const { outcomes } = await settled(rpc, settler, facilitator, items)
      expect(outcomes.map((o) => [o.index, o.authorizer, o.success])).to.deep.equal(
        items.map((item, i) => [i, item.from, i % 2 === 0]),
      )
      expect(outcomes[1]!.reason).to.match(/invalid signature$/)
      expect(await balance(seller)).to.equal(sellerBefore + 300n)
      expect([await balance(reverting.from), await balance(burning.from)]).to.deep.equal([1_000n, 1_000n])
    })

    it("a gas-burning wallet's item costs the batch at most the item gas bound, not the transaction's gas", async () => {
      const burning = await walletItem(
        encodeDeployData({ abi: gasBurningWalletAbi, bytecode: gasBurningWalletBytecode }),
      )
      // Sent with far more gas than the item may have: the wallet's loop never ends, so it burns up to the bound, not
      // past it (21 000, calldata and the settler's own work on top).
      const { outcomes, gasUsed } = await settled(rpc, settler, facilitator, [burning], 5_000_000n)
      expect(outcomes[0]!.success).to.equal(false)
      expect(gasUsed > SETTLER_ITEM_GAS_LIMIT - SETTLER_ITEM_GAS_LIMIT / 64n).to.equal(true)
      expect(gasUsed < SETTLER_ITEM_GAS_LIMIT + 60_000n).to.equal(true)
    })

    it('an item carries its own gas: a burning wallet given 90 000 burns at most that, one asking more than the bound gets the bound; the honest item after settles', async () => {
      const small = {
        ...(await walletItem(encodeDeployData({ abi: gasBurningWalletAbi, bytecode: gasBurningWalletBytecode }))),
        gas: 90_000n,
      }
      const huge = {
        ...(await walletItem(encodeDeployData({ abi: gasBurningWalletAbi, bytecode: gasBurningWalletBytecode }))),
        gas: 10n * SETTLER_ITEM_GAS_LIMIT,
      }
      const honest = await goodItem()
      const { outcomes } = await settled(rpc, settler, facilitator, [small, huge, honest], 5_000_000n)
      expect(outcomes.map((o) => o.success)).to.deep.equal([false, false, true])
      // ItemGasUsed counts the settler's own work around the call too (its encoding, the call's cold access): ≤ 10
      // 000.
      expect(Number(outcomes[0]!.gasUsed)).to.be.within(85_000, 100_000)
      expect(Number(outcomes[1]!.gasUsed)).to.be.within(
        Number(SETTLER_ITEM_GAS_LIMIT) - 10_000,
        Number(SETTLER_ITEM_GAS_LIMIT) + 10_000,
      )
    })

    it("a wallet re-entering settle (with someone else's authorization) is refused as no settler; only its own item fails", async () => {
      const victim = await freshPayer(token, 1_000n)
      const stolen = itemOf(
        await signedBy(victim, token.domain, authorizationFrom(victim, seller, 700n, randomNonce())),
      )
      const wallet = await deployedContract(
        rpc,
        deployer,
        encodeDeployData({ abi: reentrantWalletAbi, bytecode: reentrantWalletBytecode, args: [settler] }),
      )
      await mined(rpc, {
        from: deployer,
        to: wallet,
        data: encodeFunctionData({
          abi: reentrantWalletAbi,
          functionName: 'setReentry',
          args: [settleCall(settler, wallet, [stolen]).data],
        }),
      })
      await token.mint(wallet, 1_000n)
      const reentering: SettleItem = {
        ...authorizationFrom({ address: wallet, privateKey: '0x' }, seller, 100n),
        gas: FULL_BOUND,
        signature: JUNK_SIGNATURE,
      }

      const honest = await goodItem()
      const { outcomes } = await settled(rpc, settler, facilitator, [reentering, honest])
      expect(outcomes.map((o) => o.success)).to.deep.equal([false, true])
      expect(await tokenView(rpc, token.address, 'authorizationState', [victim.address, stolen.nonce])).to.equal(false)
      expect([await balance(victim.address), await balance(wallet)]).to.deep.equal([1_000n, 1_000n])
      // Why: called directly, the wallet's re-entry answers what the settler said to it.
      const isValid = encodeFunctionData({
        abi: reentrantWalletAbi,
        functionName: 'isValidSignature',
        args: [randomNonce(), '0x'],
      })
      expect(await revertReasonOf(rpc, { from: deployer, to: wallet, data: isValid })).to.equal(
        'BatchSettler: caller is not a settler',
      )
      // And the stolen item itself, sent by the facilitator, still settles: nothing was spent on the victim's behalf.
      expect((await settled(rpc, settler, facilitator, [stolen])).outcomes[0]!.success).to.equal(true)
    })
  })
}
