import type {
  EvmAddress as Address,
  BatchItem,
  PreparedTransfer,
  SendOutcome,
  TransferReceipt,
} from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { parseTransaction } from 'viem'
import { makeChain, type Chain, type NetworkConfig } from '../src/evm/chain.js'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { ChainToken } from '../src/evm/chain-token.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/testing/local-chain.js'
import { deployedSettler, freshPayer } from './batch-settler-calls.js'
import { balanceOf } from './demo-token-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'
import { circleUsdcUnderTest, demoUsdUnderTest, type TokenUnderTest } from './tokens-under-test.js'

/** A bound far above any wait a busy machine makes (40 transfers on a loaded 2-core runner took over 30 s). */
const RECEIPT_WAIT_MS = 120_000

const mined = (outcome: SendOutcome): TransferReceipt => {
  if (outcome._tag !== 'Mined') throw new Error('no receipt in time')
  return outcome.receipt
}

const to = (prepared: PreparedTransfer) => parseTransaction(prepared.raw).to?.toLowerCase()

describe('makeChain with two tokens on one network: one core per key, one submitter per token (anvil)', function () {
  this.timeout(300_000)
  let local: LocalChain
  let rpc: ChainRpc
  let chain: Chain
  /** DemoUsd and Circle's USDC, each with its own settler, in the configured order. */
  let tokens: ReadonlyArray<TokenUnderTest>
  let settlers: ReadonlyArray<Address>
  const payee: Address = '0x00000000000000000000000000000000000000dd'

  before(async () => {
    local = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: local.rpcUrl })
    tokens = [await demoUsdUnderTest(rpc, local), await circleUsdcUnderTest(rpc)]
    settlers = [await deployedSettler(local, tokens[0]!.address), await deployedSettler(local, tokens[1]!.address)]
    chain = makeChain(networkOf(local, tokens, settlers))
  })
  after(async () => {
    await chain?.stop()
    rpc?.close()
    await local?.stop()
  })

  const networkOf = (
    at: LocalChain,
    of: ReadonlyArray<TokenUnderTest>,
    bound: ReadonlyArray<Address | undefined>,
  ): NetworkConfig => ({
    rpcUrls: [at.rpcUrl],
    tokens: of.map((token, i) => ({ address: token.address, settler: bound[i] })),
    privateKeys: [at.facilitator.privateKey],
    accounts: [at.facilitator.address],
    multicall3: at.smartWallets.multicall3,
    erc6492Factories: [at.smartWallets.factory],
  })
  const submitterOf = (token: ChainToken) => token.submitters[0]!.submitter
  const signed = (payer: LocalAccount, k: number, value: bigint) =>
    signedBy(payer, tokens[k]!.domain, authorizationFrom(payer, payee, value))
  const balances = (account: Address) => Promise.all(tokens.map((token) => balanceOf(rpc, token.address, account)))

  it('builds each token its reader, verifier, submitters and settler bound; the first token is also the old fields', async () => {
    expect(chain.tokens.map((t) => t.address)).to.deep.equal(tokens.map((t) => t.address))
    expect(chain.tokens.map((t) => t.submitters.map((s) => s.account))).to.deep.equal([
      [local.facilitator.address],
      [local.facilitator.address],
    ])
    expect((await right(chain.tokens[1]!.tokenReader.tokenInfo)).symbol).to.equal('USDC')
    expect(await right(chain.tokens[1]!.tokenReader.domain)).to.deep.equal(tokens[1]!.domain)
    expect(chain.tokenReader).to.equal(chain.tokens[0]!.tokenReader)
    expect(chain.submitters).to.equal(chain.tokens[0]!.submitters)
    expect(chain.signatureVerifier).to.equal(chain.tokens[0]!.signatureVerifier)
    for (const token of chain.tokens) expect(await token.settlerItemGasLimit()).to.be.a('bigint')
  })

  it('each token verifies signatures over its own EIP-712 domain', async () => {
    const payer = await freshPayer(tokens[1]!, 0n)
    const { authorization, signature } = await signed(payer, 1, 5n)
    const verdicts = await Promise.all(
      chain.tokens.map(async (token) => right(token.signatureVerifier.checkAuthorization(authorization, signature))),
    )
    expect(verdicts.map((v) => v._tag)).to.deep.equal(['SignatureInvalid', 'SignatureValid'])
  })

  it('20 transfers of each token from one key, interleaved: one nonce sequence, no gap, no replacement, each payer debited once on its token', async () => {
    const payer = await freshPayer(tokens[0]!, 1_000_000n)
    await tokens[1]!.mint(payer.address, 1_000_000n)
    const before = await balances(payer.address)
    const minedBefore = await right(submitterOf(chain.tokens[0]!).minedNonce(local.facilitator.address))
    const payments = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const k = i % 2
        const value = BigInt(k === 0 ? 1 + i : 1_000 + i)
        return { k, value, ...(await signed(payer, k, value)) }
      }),
    )
    const results = await Promise.all(
      payments.map(async ({ k, authorization, signature }) => {
        const submitter = submitterOf(chain.tokens[k]!)
        const prepared = await right(submitter.prepare(authorization, signature))
        return { k, prepared, receipt: mined(await right(submitter.send(prepared, RECEIPT_WAIT_MS))) }
      }),
    )
    const nonces = results.map((r) => r.prepared.accountNonce).sort((a, b) => (a < b ? -1 : 1))
    expect(new Set(nonces).size).to.equal(40)
    expect(nonces[0]).to.equal(minedBefore)
    expect(nonces[39]! - nonces[0]!).to.equal(39n)
    // Nothing else was sent from the key (no filler, no replacement): exactly these 40 nonces were mined.
    expect(await right(submitterOf(chain.tokens[1]!).minedNonce(local.facilitator.address))).to.equal(minedBefore + 40n)
    for (const { k, prepared, receipt } of results) {
      expect(to(prepared)).to.equal(tokens[k]!.address)
      expect(receipt).to.include({ txHash: prepared.txHash, succeeded: true })
    }
    const sum = (k: number) => payments.filter((p) => p.k === k).reduce((a, p) => a + p.value, 0n)
    const after = await balances(payer.address)
    expect([before[0]! - after[0]!, before[1]! - after[1]!]).to.deep.equal([sum(0), sum(1)])
  })

  it("a nonce token A gives back below token B's transfer is filled once by the key's core, so B's is mined", async () => {
    const payer = await freshPayer(tokens[0]!, 100n)
    await tokens[1]!.mint(payer.address, 100n)
    const [a, b] = chain.tokens.map(submitterOf)
    const [paymentA, paymentB] = [await signed(payer, 0, 11n), await signed(payer, 1, 12n)]
    const minedBefore = await right(a!.minedNonce(local.facilitator.address))
    const preparedA = await right(a!.prepare(paymentA.authorization, paymentA.signature))
    const preparedB = await right(b!.prepare(paymentB.authorization, paymentB.signature))
    expect([preparedA.accountNonce, preparedB.accountNonce]).to.deep.equal([minedBefore, minedBefore + 1n])
    const sentB = b!.send(preparedB, RECEIPT_WAIT_MS)()
    await a!.discard(preparedA)()
    const outcome = await sentB
    if (outcome._tag === 'Left') throw new Error(outcome.left.reason)
    expect(mined(outcome.right).succeeded).to.equal(true)
    // One filler at A's nonce, B's transfer above it, nothing else.
    expect(await right(b!.minedNonce(local.facilitator.address))).to.equal(minedBefore + 2n)
    expect(await balances(payer.address)).to.deep.equal([100n, 88n])
  })

  it("each token judges a receipt by its own logs: token A's transfer is no payment of token B", async () => {
    const payer = await freshPayer(tokens[0]!, 1_000n)
    const { authorization, signature } = await signed(payer, 0, 7n)
    const [a, b] = chain.tokens.map(submitterOf)
    const prepared = await right(a!.prepare(authorization, signature))
    expect(mined(await right(a!.send(prepared, RECEIPT_WAIT_MS))).succeeded).to.equal(true)
    const asA = await right(a!.receiptOf([prepared.txHash]))
    const asB = await right(b!.receiptOf([prepared.txHash]))
    expect(O.isSome(asA) && asA.value.succeeded).to.equal(true)
    if (O.isNone(asB)) throw new Error('no receipt')
    expect(asB.value.succeeded).to.equal(false)
    expect(asB.value.revertReason).to.match(new RegExp(`the token ${tokens[1]!.address} emitted no AuthorizationUsed`))
    // The key's one receipt watcher reads the same hash for each waiter by its own token.
    const [waitedA, waitedB] = await Promise.all([
      a!.waitForReceipt(prepared, 10_000)(),
      b!.waitForReceipt(prepared, 10_000)(),
    ])
    expect(O.isSome(waitedA) && waitedA.value.succeeded).to.equal(true)
    expect(O.isSome(waitedB) && waitedB.value.succeeded).to.equal(false)
  })

  it("each token's batches go to its own settler; a settler bound to token A refuses token B's items", async () => {
    const items = async (k: number): Promise<ReadonlyArray<BatchItem & { payer: LocalAccount }>> => {
      const list = []
      // One mint at a time: they are sent from one unlocked account.
      for (const value of [10n, 20n, 30n]) {
        const payer = await freshPayer(tokens[k]!, value)
        list.push({ payer, ...(await signed(payer, k, value)) })
      }
      return list
    }
    const [a, b] = chain.tokens.map(submitterOf)
    const [itemsA, itemsB] = [await items(0), await items(1)]
    const [batchA, batchB] = await Promise.all([right(a!.prepareBatch!(itemsA)), right(b!.prepareBatch!(itemsB))])
    expect([to(batchA), to(batchB)]).to.deep.equal(settlers)
    const receipts = await Promise.all([
      right(a!.send(batchA, RECEIPT_WAIT_MS)),
      right(b!.send(batchB, RECEIPT_WAIT_MS)),
    ])
    for (const receipt of receipts.map(mined))
      expect(receipt.items!.map((i) => i.succeeded)).to.deep.equal([true, true, true])
    for (const [k, list] of [itemsA, itemsB].entries())
      for (const item of list) expect(await balanceOf(rpc, tokens[k]!.address, item.payer.address)).to.equal(0n)

    // Token B's payments through token A's submitter reach A's settler, which calls token A only: nothing moves.
    const strayed = await items(1)
    const stray = await right(a!.prepareBatch!(strayed))
    expect(to(stray)).to.equal(settlers[0])
    const receipt = mined(await right(a!.send(stray, RECEIPT_WAIT_MS)))
    expect(receipt.items!.map((i) => i.succeeded)).to.deep.equal([false, false, false])
    for (const item of strayed)
      expect(await balanceOf(rpc, tokens[1]!.address, item.payer.address)).to.equal(item.authorization.value)
  })

  it('refuses a network without tokens, a token named twice, and a settler bound to two tokens', () => {
    const config = networkOf(local, tokens, settlers)
    expect(() => makeChain({ ...config, tokens: [] })).to.throw('a network needs at least one token')
    const twice = [
      { address: tokens[0]!.address },
      { address: `0x${tokens[0]!.address.slice(2).toUpperCase()}` as Address },
    ]
    expect(() => makeChain({ ...config, tokens: twice })).to.throw(/configured twice/)
    const shared = tokens.map((token) => ({ address: token.address, settler: settlers[0] }))
    expect(() => makeChain({ ...config, tokens: shared })).to.throw(/is bound to one token/)
  })
})
