import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { makeRpcTokenReader, makeRpcTransferSubmitter, type ChainRpc } from '../src/index.js'
import { CLAIM_MARGIN_SECONDS, MAX_WINDOWS } from '../src/evm/rpc/log-windows.js'
import { freshPayer, startSettlerChain, TOKENS, type SettlerChain } from './batch-settler-calls.js'
import { authorizationFrom, right, signedBy } from './fixtures.js'

/** Blocks of one `eth_getLogs` here (1 000 in service: anvil mines thousands of blocks slowly). */
const WINDOW = 10n
/** More blocks than two windows (log-windows.ts): a recovery long after the payment. */
const LATER_BLOCKS = 25

/** `rpc` counting its `eth_getLogs` reads. */
const countingLogReads = (rpc: ChainRpc) => {
  const counted = { reads: 0 }
  const read: ChainRpc['read'] = (method, params) => {
    if (method === 'eth_getLogs') counted.reads++
    return rpc.read(method, params)
  }
  return { rpc: { ...rpc, read }, counted }
}

const latestTimestamp = async (rpc: ChainRpc): Promise<bigint> =>
  BigInt(((await rpc.read('eth_getBlockByNumber', ['latest', false])) as { timestamp: string }).timestamp)

/** A payment of 10 from a fresh payer (valid until `validBefore`, if given), sent and mined. */
const settledPayment = async ({ chain, rpc, token }: SettlerChain, validBefore?: bigint) => {
  const payer = await freshPayer(token, 1_000n)
  const terms = authorizationFrom(payer, (await freshPayer(token, 0n)).address, 10n)
  const signed = await signedBy(payer, token.domain, {
    ...terms,
    ...(validBefore === undefined ? {} : { validBefore }),
  })
  const submitter = makeRpcTransferSubmitter({ rpc, token: token.address, privateKey: chain.facilitator.privateKey })
  const prepared = await right(submitter.prepare(signed.authorization, signed.signature))
  expect((await right(submitter.send(prepared, 10_000)))._tag).to.equal('Mined')
  return { signed, prepared }
}

/**
 * Who used or cancelled an authorization is searched back to the payment's time, window by window (docs/ARCHITECTURE.md
 * §5.5): a use many windows before the search is found, and the search reads no window older than `validAfter` or ten
 * minutes before the claim.
 */
for (const [name, deploy] of TOKENS) {
  describe(`the search for an authorization's use reaches back to the payment's time, ${name} on anvil`, function () {
    this.timeout(60_000)
    let running: SettlerChain
    before(async () => {
      running = await startSettlerChain(deploy)
    })
    after(async () => {
      running?.rpc.close()
      await running?.chain.stop()
    })

    it(`finds a use ${LATER_BLOCKS} blocks back (a window is ${WINDOW})`, async () => {
      const { rpc, token } = running
      const { signed, prepared } = await settledPayment(running)
      await rpc.read('anvil_mine', [`0x${LATER_BLOCKS.toString(16)}`])
      const head = BigInt((await rpc.read('eth_blockNumber', [])) as string)

      const reader = makeRpcTokenReader(rpc, token.address, { logWindowBlocks: WINDOW })
      const ended = await right(reader.authorizationEndedBy(signed.authorization, new Date()))
      expect(O.isSome(ended) && ended.value).to.deep.include({ how: 'used', txHash: prepared.txHash })
      const used = await right(reader.authorizationUsedBy(signed.authorization, new Date(), head))
      expect(O.isSome(used) && used.value.txHash).to.equal(prepared.txHash)
    })

    it('reads no window whose blocks are all older than validAfter, or than ten minutes before the claim', async () => {
      const { rpc, token } = running
      const payer = await freshPayer(token, 1_000n)
      const before = await latestTimestamp(rpc)
      // One block a second: the newest window starts after the bound, the next one before it.
      await rpc.read('anvil_mine', [`0x${LATER_BLOCKS.toString(16)}`, '0x1'])
      const bound = before + BigInt(LATER_BLOCKS) - WINDOW - 2n
      // The search reaches CLAIM_MARGIN_SECONDS before validAfter (a cancellation may precede it).
      const validAfter = bound + CLAIM_MARGIN_SECONDS
      const unused = { ...authorizationFrom(payer, (await freshPayer(token, 0n)).address, 10n), validAfter }
      const bounded = countingLogReads(rpc)
      const reader = makeRpcTokenReader(bounded.rpc, token.address, { logWindowBlocks: WINDOW })
      expect(await right(reader.authorizationEndedBy(unused, new Date()))).to.deep.equal(O.none)
      expect(bounded.counted.reads).to.equal(2)

      // validAfter 0 (as official Permit2 payments sign): the claim bounds the search, CLAIM_MARGIN_SECONDS before it.
      const claimed = countingLogReads(rpc)
      const byClaim = makeRpcTokenReader(claimed.rpc, token.address, { logWindowBlocks: WINDOW })
      const claimedAt = new Date(Number(bound + CLAIM_MARGIN_SECONDS) * 1000)
      expect(await right(byClaim.authorizationEndedBy({ ...unused, validAfter: 0n }, claimedAt))).to.deep.equal(O.none)
      expect(claimed.counted.reads).to.equal(2)

      const fromZero = countingLogReads(rpc)
      const unbounded = makeRpcTokenReader(fromZero.rpc, token.address, { logWindowBlocks: WINDOW })
      // Claimed at the epoch: nothing but block 0 ends the search.
      const epoch = new Date(0)
      expect(await right(unbounded.authorizationEndedBy({ ...unused, validAfter: 0n }, epoch))).to.deep.equal(O.none)
      const head = BigInt((await rpc.read('eth_blockNumber', [])) as string)
      expect(BigInt(fromZero.counted.reads), 'every window back to block 0').to.equal((head + WINDOW) / WINDOW)
    })

    // Last: it makes the chain longer than the searches above may read.
    it(`finds a use more than ${MAX_WINDOWS} windows below the head, long after the authorization expired`, async () => {
      const { rpc, token } = running
      const validBefore = (await latestTimestamp(rpc)) + CLAIM_MARGIN_SECONDS
      const { signed, prepared } = await settledPayment(running, validBefore)
      const minedAt = await latestTimestamp(rpc)
      const claimedAt = new Date(Number(minedAt) * 1000)
      // An outage: blocks of 10 seconds, more of them than MAX_WINDOWS windows hold.
      const later = MAX_WINDOWS * WINDOW + 2n * WINDOW
      await rpc.read('anvil_mine', [`0x${later.toString(16)}`, '0xa'])
      // The blocks up to ten minutes past validBefore, in windows (one more where the search starts), and one more
      // read for the use's Transfer.
      const windowsOfTheValidity = (validBefore + CLAIM_MARGIN_SECONDS - minedAt) / 10n / WINDOW + 2n
      const logs = countingLogReads(rpc)
      const reader = makeRpcTokenReader(logs.rpc, token.address, { logWindowBlocks: WINDOW })
      const ended = await right(reader.authorizationEndedBy(signed.authorization, claimedAt))
      expect(O.isSome(ended) && ended.value).to.deep.include({ how: 'used', txHash: prepared.txHash })
      // The windows of the payment's minutes, not the hundred below the head.
      expect(logs.counted.reads).to.be.at.most(Number(windowsOfTheValidity) + 1)
    })
  })
}
