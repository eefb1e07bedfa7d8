import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { RpcRequestError } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeBroadcastQueue } from '../src/evm/submission/broadcast-queue.js'
import { makeChainRpc, type BatchOutcome, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeNonceAllocator } from '../src/evm/submission/nonce-allocator.js'
import { readQuantity } from '../src/evm/rpc/rpc-failure.js'
import { makeSecp256k1TransactionSigner } from '../src/evm/signing/transaction-signer.js'
import { eventually } from './fixtures.js'

const HOUR_MS = 3_600_000
const payee: Address = '0x00000000000000000000000000000000000000dd'
const raw = (nonce: bigint): Hex => `0x0${nonce}`

/** A node that records each batch sent to it and answers when the test says. */
const recordingNode = () => {
  const batches: Array<ReadonlyArray<unknown>> = []
  const answers: Array<(outcomes: ReadonlyArray<BatchOutcome> | Error) => void> = []
  const rpc: Pick<ChainRpc, 'writeBatch'> = {
    writeBatch: (calls) =>
      new Promise((resolve, reject) => {
        batches.push(calls.map((call) => call.params[0]))
        answers.push((outcomes) => (outcomes instanceof Error ? reject(outcomes) : resolve(outcomes)))
      }),
  }
  const accept = (k: number) => answers[k]!(batches[k]!.map((): BatchOutcome => ({ ok: true, result: '0x' })))
  return { rpc, batches, answers, accept }
}

/** A lane over a recording node, for an account with nonces 0 … count − 1 handed out (being prepared). */
const laneOverRecordingNode = async (count: number, maxHoldMs?: number, readPendingCount = async () => 0n) => {
  const nonces = makeNonceAllocator(readPendingCount)
  for (let i = 0; i < count; i++) await nonces.allocate()
  const node = recordingNode()
  return { nonces, node, lane: makeBroadcastQueue({ rpc: node.rpc, nonces, maxHoldMs }) }
}

/**
 * Time for a lane that would not hold to send (turns of the event loop, its 2 ms retries). Not an ordering by sleep:
 * where the test asserts nothing was sent after it, a correct lane sends nothing however long it waits.
 */
const laneTurns = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('broadcast queue (a recording node)', () => {
  it('sends what is handed over in one turn as one batch, in account-nonce order, and marks each broadcast', async () => {
    const { nonces, node, lane } = await laneOverRecordingNode(3)
    const results = [2n, 0n, 1n].map((nonce) => lane.send(raw(nonce), nonce))
    await eventually(() => node.batches.length === 1)
    expect(node.batches[0]).to.deep.equal([raw(0n), raw(1n), raw(2n)])
    node.accept(0)
    expect(await Promise.all(results)).to.deep.equal([E.right(undefined), E.right(undefined), E.right(undefined)])
    expect(nonces.lowestPrepared(() => false)).to.equal(undefined)
  })

  it('holds a transaction above a nonce still being prepared, and sends both in order once it comes', async () => {
    const { node, lane } = await laneOverRecordingNode(3, HOUR_MS)
    void lane.send(raw(2n), 2n)
    void lane.send(raw(1n), 1n)
    await laneTurns()
    expect(node.batches).to.deep.equal([])
    void lane.send(raw(0n), 0n)
    await eventually(() => node.batches.length === 1)
    expect(node.batches[0]).to.deep.equal([raw(0n), raw(1n), raw(2n)])
  })

  it('sends what is below the lowest nonce being prepared, holds the rest, and sends it once that nonce is released', async () => {
    const { nonces, node, lane } = await laneOverRecordingNode(3, HOUR_MS)
    void lane.send(raw(0n), 0n)
    void lane.send(raw(2n), 2n)
    await eventually(() => node.batches.length === 1)
    expect(node.batches[0]).to.deep.equal([raw(0n)])
    node.accept(0)
    await laneTurns()
    expect(node.batches).to.have.length(1)
    nonces.release(1n)
    lane.wake()
    await eventually(() => node.batches.length === 2)
    expect(node.batches[1]).to.deep.equal([raw(2n)])
  })

  it('by default holds far longer than a busy journal write (a 1 s hold let sends out of order under load)', async () => {
    const { node, lane } = await laneOverRecordingNode(2)
    void lane.send(raw(1n), 1n)
    const since = performance.now()
    // The machine may be slow: what counts is that nothing went while the lower nonce was prepared for 1.5 s.
    while (performance.now() - since < 1_500) await laneTurns()
    expect(node.batches).to.deep.equal([])
    void lane.send(raw(0n), 0n)
    await eventually(() => node.batches.length === 1)
    expect(node.batches[0]).to.deep.equal([raw(0n), raw(1n)])
  })

  it('holds no longer than maxHoldMs (a guard against a nonce never given back): then a transaction goes without the lower nonce', async () => {
    const { nonces, node, lane } = await laneOverRecordingNode(2, 0)
    void lane.send(raw(1n), 1n)
    await eventually(() => node.batches.length === 1)
    expect(node.batches[0]).to.deep.equal([raw(1n)])
    expect(nonces.lowestPrepared(() => false)).to.equal(0n)
  })

  it('keeps one request in flight: what arrives meanwhile goes as the next batch once the node answered', async () => {
    const { node, lane } = await laneOverRecordingNode(3)
    void lane.send(raw(0n), 0n)
    await eventually(() => node.batches.length === 1)
    void lane.send(raw(2n), 2n)
    void lane.send(raw(1n), 1n)
    await laneTurns()
    expect(node.batches).to.have.length(1)
    node.accept(0)
    await eventually(() => node.batches.length === 2)
    expect(node.batches[1]).to.deep.equal([raw(1n), raw(2n)])
  })

  it('settles each transaction on its own answer; a request that failed as a whole leaves each uncertain', async () => {
    let pendingReads = 0
    const { nonces, node, lane } = await laneOverRecordingNode(4, 0, async () => (pendingReads++, 0n))
    const first = [0n, 1n].map((nonce) => lane.send(raw(nonce), nonce))
    await eventually(() => node.batches.length === 1)
    const refusal = new RpcRequestError({
      body: {},
      error: { code: -32003, message: 'nonce too low' },
      url: 'http://node',
    })
    node.answers[0]!([
      { ok: true, result: '0x' },
      { ok: false, error: refusal },
    ])
    expect(await Promise.all(first)).to.deep.equal([
      E.right(undefined),
      E.left({ _tag: 'SendRejected', reason: 'nonce too low' }),
    ])
    // A nonce refusal: the next allocation reads the chain's pending count again.
    await nonces.allocate()
    expect(pendingReads).to.equal(2)

    const second = [2n, 3n].map((nonce) => lane.send(raw(nonce), nonce))
    await eventually(() => node.batches.length === 2)
    node.answers[1]!(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    for (const result of await Promise.all(second))
      expect(E.isLeft(result) && result.left._tag).to.equal('SendUncertain')
  })
})

describe('broadcast queue (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  /** A funded key, its nonces as the submitter keeps them, and a plain transfer of nothing at any nonce. */
  const account = async () => {
    const key = generatePrivateKey()
    const address = privateKeyToAddress(key)
    await rpc.read('anvil_setBalance', [address, '0xde0b6b3a7640000'])
    const signer = makeSecp256k1TransactionSigner(key)
    const sign = (nonce: bigint, gas = 21_000n) =>
      signer.sign({
        chainId: chain.chainId,
        nonce: Number(nonce),
        to: payee,
        data: '0x',
        gas,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      }).raw
    const mined = () => readQuantity(rpc, 'eth_getTransactionCount', [address, 'latest'])
    let pendingReads = 0
    const nonces = makeNonceAllocator(
      () => (pendingReads++, readQuantity(rpc, 'eth_getTransactionCount', [address, 'pending'])),
    )
    return { sign, mined, nonces, pendingReads: () => pendingReads }
  }

  it('reaches the node as one batch in nonce order, whatever order they were handed over in: each accepted and mined', async () => {
    const { sign, mined, nonces } = await account()
    const batches: Array<ReadonlyArray<unknown>> = []
    const lane = makeBroadcastQueue({
      rpc: { writeBatch: (calls) => (batches.push(calls.map((c) => c.params[0])), rpc.writeBatch(calls)) },
      nonces,
    })
    const allocated = await Promise.all(Array.from({ length: 5 }, () => nonces.allocate()))
    const raws = allocated.map((nonce) => sign(nonce))
    const results = await Promise.all([...allocated].reverse().map((nonce) => lane.send(raws[Number(nonce)]!, nonce)))
    expect(results.every(E.isRight)).to.equal(true)
    expect(batches).to.deep.equal([raws])
    await eventually(async () => (await mined()) === 5n)
  })

  it('counts bytes the node already has as sent; refuses a stale nonce alone within its batch and re-reads the nonces', async () => {
    const { sign, mined, nonces, pendingReads } = await account()
    const lane = makeBroadcastQueue({ rpc, nonces })
    const zero = await nonces.allocate()
    expect(await lane.send(sign(zero), zero)).to.deep.equal(E.right(undefined))
    await eventually(async () => (await mined()) === 1n)

    await rpc.read('evm_setAutomine', [false])
    try {
      const one = await nonces.allocate()
      const pending = sign(one)
      expect(await lane.send(pending, one)).to.deep.equal(E.right(undefined))
      // Sent again: anvil answers "transaction already imported".
      const [again, stale] = await Promise.all([lane.send(pending, one), lane.send(sign(zero, 22_000n), zero)])
      expect(again).to.deep.equal(E.right(undefined))
      expect(stale).to.deep.equal(E.left({ _tag: 'SendRejected', reason: 'nonce too low' }))
      expect(pendingReads()).to.equal(1)
      expect(await nonces.allocate()).to.equal(2n)
      expect(pendingReads()).to.equal(2)
    } finally {
      await rpc.read('evm_setAutomine', [true])
    }
    await rpc.read('evm_mine')
    await eventually(async () => (await mined()) === 2n)
  })
})
