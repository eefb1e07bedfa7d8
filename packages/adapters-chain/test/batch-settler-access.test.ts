import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { decodeFunctionResult, encodeFunctionData, numberToHex } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { batchSettlerAbi } from '../src/generated/batch-settler.js'
import type { LocalChain } from '../src/testing/local-chain.js'
import { decodeNodeReceipt } from '../src/evm/submission/node-receipt.js'
import { itemOutcomesOf } from '../src/evm/submission/receipt-logs.js'
import { classifyRpcError } from '../src/evm/rpc/rpc-failure.js'
import { SETTLER_ITEM_GAS_LIMIT } from '../src/evm/settler/settler-deployment.js'
import {
  demoUsdUnderTest,
  freshPayer,
  itemOf,
  minedWithGas,
  settleCall,
  settled,
  settlerCall,
  startSettlerChain,
  type SettleItem,
  type TokenUnderTest,
} from './batch-settler-calls.js'
import { mined, revertReasonOf, tokenView } from './demo-token-calls.js'
import { authorizationFrom, signedBy } from './fixtures.js'

const NOT_SETTLER = 'BatchSettler: caller is not a settler'
const NOT_OWNER = 'BatchSettler: caller is not the owner'

describe('BatchSettler: who may call it, and what it refuses as a whole (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let token: TokenUnderTest
  let settler: Address
  /** The deployer: the owner, and at first the only settler. */
  let owner: Address
  let stranger: Address

  before(async () => {
    ;({ chain, rpc, token, settler } = await startSettlerChain(demoUsdUnderTest))
    owner = chain.facilitator.address
    stranger = await withEth()
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  /** A fresh account with ETH for gas. */
  const withEth = async (): Promise<Address> => {
    const { address } = await freshPayer(token, 0n)
    await rpc.read('anvil_setBalance', [address, numberToHex(10n ** 18n)])
    return address
  }
  const item = async (): Promise<SettleItem> => {
    const payer = await freshPayer(token, 1_000n)
    return itemOf(
      await signedBy(payer, token.domain, authorizationFrom(payer, '0x00000000000000000000000000000000000000dd', 100n)),
    )
  }
  const used = async (i: SettleItem) =>
    (await tokenView(rpc, token.address, 'authorizationState', [i.from, i.nonce])) as boolean
  const view = async (
    functionName: 'owner' | 'isSettler' | 'token' | 'itemGasLimit',
    args: ReadonlyArray<unknown> = [],
  ) => {
    const data = (await rpc.read('eth_call', [
      { to: settler, data: encodeFunctionData({ abi: batchSettlerAbi, functionName, args: args as never }) },
      'latest',
    ])) as `0x${string}`
    return decodeFunctionResult({ abi: batchSettlerAbi, functionName, data })
  }
  const asOwner = (functionName: string, args: ReadonlyArray<unknown>) =>
    mined(rpc, settlerCall(settler, owner, functionName, args))

  it('is deployed for one token with its item gas bound; the deployer owns it and is its one settler', async () => {
    expect(String(await view('token')).toLowerCase()).to.equal(token.address)
    expect(await view('itemGasLimit')).to.equal(SETTLER_ITEM_GAS_LIMIT)
    expect(String(await view('owner')).toLowerCase()).to.equal(owner)
    expect([await view('isSettler', [owner]), await view('isSettler', [stranger])]).to.deep.equal([true, false])
  })

  it('a stranger cannot settle, even a correctly signed item: refused, the authorization stays unused', async () => {
    const signed = await item()
    expect(await revertReasonOf(rpc, settleCall(settler, stranger, [signed]))).to.equal(NOT_SETTLER)
    expect(await minedWithGas(rpc, settleCall(settler, stranger, [signed]), 500_000n)).to.have.property('status', '0x0')
    expect(await used(signed)).to.equal(false)
  })

  it('the owner allows a settler, which then settles; removed, it is refused again', async () => {
    const helper = await withEth()
    await asOwner('setSettler', [helper, true])
    expect(await view('isSettler', [helper])).to.equal(true)
    expect((await settled(rpc, settler, helper, [await item()])).outcomes[0]!.success).to.equal(true)
    await asOwner('setSettler', [helper, false])
    expect(await view('isSettler', [helper])).to.equal(false)
    expect(await revertReasonOf(rpc, settleCall(settler, helper, [await item()]))).to.equal(NOT_SETTLER)
  })

  it('only the owner sets settlers or hands over ownership; a new owner takes over, the old one is refused; never to zero', async () => {
    expect(await revertReasonOf(rpc, settlerCall(settler, stranger, 'setSettler', [stranger, true]))).to.equal(
      NOT_OWNER,
    )
    expect(await revertReasonOf(rpc, settlerCall(settler, stranger, 'transferOwnership', [stranger]))).to.equal(
      NOT_OWNER,
    )
    const zero = '0x0000000000000000000000000000000000000000'
    expect(await revertReasonOf(rpc, settlerCall(settler, owner, 'transferOwnership', [zero]))).to.equal(
      'BatchSettler: new owner is the zero address',
    )

    const next = await withEth()
    await asOwner('transferOwnership', [next])
    expect(String(await view('owner')).toLowerCase()).to.equal(next)
    expect(await revertReasonOf(rpc, settlerCall(settler, owner, 'setSettler', [stranger, true]))).to.equal(NOT_OWNER)
    await mined(rpc, settlerCall(settler, next, 'transferOwnership', [owner]))
    expect(String(await view('owner')).toLowerCase()).to.equal(owner)
    // Ownership is not settling: the settler set is what it was.
    expect([await view('isSettler', [owner]), await view('isSettler', [next])]).to.deep.equal([true, false])
  })

  it('takes no ETH (no payable function, no receive) and refuses an empty batch', async () => {
    for (const data of ['0x', settleCall(settler, owner, [await item()]).data]) {
      const refused = await rpc
        .read('eth_call', [{ from: owner, to: settler, data, value: numberToHex(1n) }, 'latest'])
        .then(
          () => undefined,
          (error: unknown) => classifyRpcError(error),
        )
      expect(refused?.kind, data.slice(0, 10)).to.equal('answered')
    }
    expect(await revertReasonOf(rpc, settleCall(settler, owner, []))).to.equal('BatchSettler: no items')
  })

  it('too little gas for the next item stops the batch there without reverting: the items run keep their outcomes, the rest are reported not run and untouched', async () => {
    const items = [await item(), await item(), await item()]
    // Enough to start the first item with its full bound, not the second.
    const gas = SETTLER_ITEM_GAS_LIMIT + 100_000n
    const receipt = await minedWithGas(rpc, settleCall(settler, owner, items), gas)
    expect(receipt).to.have.property('status', '0x1')
    const outcomes = itemOutcomesOf(decodeNodeReceipt(receipt).logs, settler, () => undefined)
    expect(outcomes).to.deep.equal([
      { index: 0, succeeded: true },
      { index: 1, succeeded: false, notRun: true },
      { index: 2, succeeded: false, notRun: true },
    ])
    expect([await used(items[0]!), await used(items[1]!), await used(items[2]!)]).to.deep.equal([true, false, false])
    // The items not run are untouched: they settle in a later batch.
    expect((await settled(rpc, settler, owner, items.slice(1))).outcomes.map((o) => o.success)).to.deep.equal([
      true,
      true,
    ])
  })
})
