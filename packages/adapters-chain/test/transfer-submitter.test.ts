import type {
  EvmAddress as Address,
  Eip712Domain,
  PreparedTransfer,
  Replacement,
  SendOutcome,
} from '@x402-facilitator/domain'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeRpcTokenReader, type RpcTokenReader } from '../src/evm/token/rpc-token-reader.js'
import { makeRpcTransferSubmitter, type RpcTransferSubmitter } from '../src/evm/submission/rpc-transfer-submitter.js'
import { authorizationFrom, eventually, left, right, signedBy } from './fixtures.js'

const prepared = (replacement: Replacement): PreparedTransfer => {
  if (replacement._tag !== 'Prepared') throw new Error('at the fee cap')
  return replacement.transfer
}

const mined = (outcome: SendOutcome) => {
  expect(outcome._tag).to.equal('Mined')
  if (outcome._tag !== 'Mined') throw new Error('not mined')
  return outcome.receipt
}

/**
 * How long a send waits for the receipt of a transaction anvil mines at once: within mocha's timeout, since a busy
 * machine once kept the first send of this file past 10 s (and every later test failed behind it).
 */
const MINED_WITHIN_MS = 45_000

describe('RpcTransferSubmitter (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let reader: RpcTokenReader
  let domain: Eip712Domain
  let submitter: RpcTransferSubmitter
  const payee: Address = '0x00000000000000000000000000000000000000dd'

  before(async () => {
    chain = await startLocalChain({ payers: 3 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    reader = makeRpcTokenReader(rpc, chain.tokenAddress)
    domain = await right(reader.domain)
    submitter = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  const settle = async (s: RpcTransferSubmitter, value: bigint, payer = chain.payers[0]!) => {
    const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, value))
    const prepared = await right(s.prepare(authorization, signature))
    return { authorization, signature, prepared, outcome: await right(s.send(prepared, MINED_WITHIN_MS)) }
  }

  it('settles through the receipt watcher: moves exactly value from payer to payee', async () => {
    const payer = chain.payers[0]!
    const before = [
      await right(reader.payerState(payer.address, `0x${'00'.repeat(32)}`)),
      await right(reader.payerState(payee, `0x${'00'.repeat(32)}`)),
    ]
    const { authorization, prepared, outcome } = await settle(submitter, 1_234_567n)
    const receipt = mined(outcome)
    expect(receipt).to.include({ txHash: prepared.txHash, succeeded: true })
    expect(receipt.gasUsed > 40_000n && receipt.gasUsed < 120_000n).to.equal(true)
    const payerAfter = await right(reader.payerState(payer.address, authorization.nonce))
    const payeeAfter = await right(reader.payerState(payee, authorization.nonce))
    expect(before[0]!.balance - payerAfter.balance).to.equal(1_234_567n)
    expect(payeeAfter.balance - before[1]!.balance).to.equal(1_234_567n)
    expect(payerAfter.authorizationUsed).to.equal(true)
    expect(await right(submitter.receiptOf([prepared.txHash]))).to.deep.equal(O.some(receipt))
    expect(await right(submitter.minedNonce(submitter.address))).to.equal(prepared.accountNonce + 1n)
  })

  it('settles through EIP-7966 sync sends when asked', async () => {
    // Its own key: two allocators on one key would (rightly) trip over each other's nonces.
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0xde0b6b3a7640000'])
    const sync = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key, receiptMode: 'sync' })
    expect(await sync.receiptMode()).to.equal('sync')
    const payer = chain.payers[1]!
    const before = (await right(reader.payerState(payer.address, `0x${'00'.repeat(32)}`))).balance
    const { outcome } = await settle(sync, 42n, payer)
    expect(mined(outcome).succeeded).to.equal(true)
    expect(before - (await right(reader.payerState(payer.address, `0x${'00'.repeat(32)}`))).balance).to.equal(42n)
  })

  it('a replayed authorization: the verify read sees it used, and one sent anyway is mined reverted with the reason', async () => {
    const { authorization, signature, outcome } = await settle(submitter, 10n)
    mined(outcome)
    const nonceBefore = await right(submitter.minedNonce(submitter.address))
    expect((await right(reader.payerState(authorization.from, authorization.nonce))).authorizationUsed).to.equal(true)
    expect(await right(submitter.minedNonce(submitter.address))).to.equal(nonceBefore)
    const replay = await right(submitter.prepare(authorization, signature))
    const receipt = mined(await right(submitter.send(replay, MINED_WITHIN_MS)))
    expect(receipt.succeeded).to.equal(false)
    expect(receipt.revertReason).to.equal('DemoUsd: authorization is used or canceled')
  })

  it('50 concurrent settlements from one key: all mined, distinct consecutive nonces, no nonce error', async () => {
    const payer = chain.payers[2]!
    const signed = await Promise.all(
      Array.from({ length: 50 }, (_, i) => signedBy(payer, domain, authorizationFrom(payer, payee, BigInt(i + 1)))),
    )
    const results = await Promise.all(
      signed.map(async ({ authorization, signature }) => {
        const prepared = await right(submitter.prepare(authorization, signature))
        return { prepared, outcome: await right(submitter.send(prepared, 20_000)) }
      }),
    )
    const nonces = results.map((r) => r.prepared.accountNonce).sort((a, b) => (a < b ? -1 : 1))
    expect(new Set(nonces).size).to.equal(50)
    expect(nonces[49]! - nonces[0]!).to.equal(49n)
    for (const { outcome } of results) expect(mined(outcome).succeeded).to.equal(true)
  })

  it('a discarded nonce goes out again first, so the transactions behind it are mined', async () => {
    const payer = chain.payers[0]!
    const [a, b, c] = await Promise.all(
      [1n, 2n, 3n].map((v) => signedBy(payer, domain, authorizationFrom(payer, payee, v))),
    )
    const first = await right(submitter.prepare(a!.authorization, a!.signature))
    const second = await right(submitter.prepare(b!.authorization, b!.signature))
    await submitter.discard(first)()
    const third = await right(submitter.prepare(c!.authorization, c!.signature))
    expect(third.accountNonce).to.equal(first.accountNonce)
    const [two, three] = await Promise.all([
      right(submitter.send(second, MINED_WITHIN_MS)),
      right(submitter.send(third, MINED_WITHIN_MS)),
    ])
    expect(mined(two!).succeeded && mined(three!).succeeded).to.equal(true)
  })

  it('a nonce given back after a higher one left is filled at once, so the one above is mined without waiting for traffic', async () => {
    // A higher nonce leaves before a lower one is given back only past the queue's guard (a nonce never given back):
    // a key of its own whose guard is 0 ms.
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0xde0b6b3a7640000'])
    const unguarded = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: key,
      broadcastHoldMs: 0,
    })
    const payer = chain.payers[0]!
    const [a, b] = await Promise.all([11n, 12n].map((v) => signedBy(payer, domain, authorizationFrom(payer, payee, v))))
    const failed = await right(unguarded.prepare(a!.authorization, a!.signature))
    const above = await right(unguarded.prepare(b!.authorization, b!.signature))
    const sending = right(unguarded.send(above, MINED_WITHIN_MS))
    await eventually(async () => (await rpc.read('eth_getTransactionByHash', [above.txHash])) !== null)
    // The lower one failed before its broadcast (its journal write refused): nothing else will use its nonce now.
    await unguarded.discard(failed)()
    expect(mined(await sending).succeeded).to.equal(true)
    expect(await right(unguarded.minedNonce(unguarded.address))).to.equal(above.accountNonce + 1n)
  })

  it('a nonce given back while the one above still waits in the lane is filled once that one leaves, at once', async () => {
    const payer = chain.payers[0]!
    const [a, b] = await Promise.all([13n, 14n].map((v) => signedBy(payer, domain, authorizationFrom(payer, payee, v))))
    const failed = await right(submitter.prepare(a!.authorization, a!.signature))
    const above = await right(submitter.prepare(b!.authorization, b!.signature))
    // The one above is handed to the lane, which holds it for the lower nonce still being prepared...
    const sending = right(submitter.send(above, MINED_WITHIN_MS))
    // ...which fails before its broadcast: giving it back lets the lane send the one above, and its nonce must be
    // filled.
    await submitter.discard(failed)()
    expect(mined(await sending).succeeded).to.equal(true)
    expect(await right(submitter.minedNonce(submitter.address))).to.equal(above.accountNonce + 1n)
  })

  it('fills a nonce a crashed process signed but never broadcast, so the journalled transaction above it is mined', async () => {
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0xde0b6b3a7640000'])
    const crashed = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key })
    const payer = chain.payers[1]!
    const [a, b] = await Promise.all([5n, 6n].map((v) => signedBy(payer, domain, authorizationFrom(payer, payee, v))))
    const lost = await right(crashed.prepare(a!.authorization, a!.signature))
    const journalled = await right(crashed.prepare(b!.authorization, b!.signature))
    // The process recorded and broadcast nonce 1, then died before recording nonce 0: nonce 1 waits behind a gap.
    await rpc.write('eth_sendRawTransaction', [journalled.raw])
    expect([lost.accountNonce, journalled.accountNonce]).to.deep.equal([0n, 1n])

    const restarted = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key })
    expect(await right(restarted.fillNonceGaps([journalled.accountNonce]))).to.deep.equal([0n])
    await eventually(async () => O.isSome(await right(restarted.receiptOf([journalled.txHash]))))
    expect(O.isSome(await right(restarted.receiptOf([lost.txHash])))).to.equal(false)
    expect(await right(restarted.minedNonce(restarted.address))).to.equal(2n)
    // Nothing left to fill; the journalled nonce is never handed to a new settle.
    expect(await right(restarted.fillNonceGaps([journalled.accountNonce]))).to.deep.equal([])
    const next = await right(restarted.prepare(a!.authorization, a!.signature))
    expect(next.accountNonce).to.equal(2n)
    expect(mined(await right(restarted.send(next, MINED_WITHIN_MS))).succeeded).to.equal(true)
  })

  it('a gap whose filler the node refused is still a gap: the next pass fills it (the lane never wedges)', async () => {
    const key = generatePrivateKey()
    const address = privateKeyToAddress(key)
    await rpc.read('anvil_setBalance', [address, '0xde0b6b3a7640000'])
    const crashed = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key })
    const payer = chain.payers[1]!
    const [a, b] = await Promise.all([7n, 8n].map((v) => signedBy(payer, domain, authorizationFrom(payer, payee, v))))
    await right(crashed.prepare(a!.authorization, a!.signature))
    const journalled = await right(crashed.prepare(b!.authorization, b!.signature))
    await rpc.write('eth_sendRawTransaction', [journalled.raw])

    const restarted = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key })
    // No ether for the filler's gas: the node refuses it, so nothing was filled.
    await rpc.read('anvil_setBalance', [address, '0x0'])
    expect(await right(restarted.fillNonceGaps([journalled.accountNonce]))).to.deep.equal([])
    await rpc.read('anvil_setBalance', [address, '0xde0b6b3a7640000'])
    expect(await right(restarted.fillNonceGaps([journalled.accountNonce]))).to.deep.equal([0n])
    await eventually(async () => O.isSome(await right(restarted.receiptOf([journalled.txHash]))))
  })

  it('re-synchronises its nonces from the chain after a nonce error', async () => {
    // Another process signing with the same key takes the next nonce behind this submitter's back.
    const other = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: chain.facilitator.privateKey })
    await settle(submitter, 1n)
    mined((await settle(other, 1n)).outcome)
    const { authorization, signature } = await signedBy(
      chain.payers[0]!,
      domain,
      authorizationFrom(chain.payers[0]!, payee, 3n),
    )
    const stale = await right(submitter.prepare(authorization, signature))
    const refused = await left(submitter.send(stale, 5_000))
    expect(refused).to.deep.equal({ _tag: 'SendRejected', reason: 'nonce too low' })
    const fresh = await right(submitter.prepare(authorization, signature))
    expect(fresh.accountNonce).to.equal(stale.accountNonce + 1n)
    expect(mined(await right(submitter.send(fresh, MINED_WITHIN_MS))).succeeded).to.equal(true)
  })

  it("re-sending another account's stored transaction leaves this account's nonces alone: no nonce skipped, none held", async () => {
    // Another key (a dead replica's, another lane's) whose stuck transaction sits at a nonce this account is about to
    // use.
    const otherKey = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(otherKey), '0x56BC75E2D63100000'])
    const other = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: otherKey })
    const next = BigInt(String(await rpc.read('eth_getTransactionCount', [submitter.address, 'pending'])))
    await rpc.read('anvil_setNonce', [other.address, `0x${(next + 1n).toString(16)}`])
    const { authorization, signature } = await signedBy(
      chain.payers[2]!,
      domain,
      authorizationFrom(chain.payers[2]!, payee, 3n),
    )
    const foreign = await right(other.prepare(authorization, signature))
    expect(foreign.accountNonce).to.equal(next + 1n)
    expect(await right(submitter.rebroadcast(foreign.raw, other.address))).to.equal(undefined)
    const ours = []
    for (let i = 0; i < 3; i++) {
      const payment = await signedBy(chain.payers[0]!, domain, authorizationFrom(chain.payers[0]!, payee, 1n))
      ours.push(await right(submitter.prepare(payment.authorization, payment.signature)))
    }
    expect(ours.map((p) => p.accountNonce)).to.deep.equal([next, next + 1n, next + 2n])
    for (const p of ours) expect(mined(await right(submitter.send(p, MINED_WITHIN_MS))).succeeded).to.equal(true)
  })

  it('replaces an unmined transaction with fees raised by 10 %, rebroadcasts, and finds the receipt of whichever was mined', async () => {
    await rpc.read('evm_setAutomine', [false])
    try {
      const { authorization, signature } = await signedBy(
        chain.payers[1]!,
        domain,
        authorizationFrom(chain.payers[1]!, payee, 5n),
      )
      const original = await right(submitter.prepare(authorization, signature))
      expect(await right(submitter.send(original, 200))).to.deep.equal({ _tag: 'Unconfirmed' })
      expect(await right(submitter.rebroadcast(original.raw, submitter.address))).to.equal(undefined)
      const replacement = prepared(await right(submitter.prepareReplacement(original)))
      expect(replacement.accountNonce).to.equal(original.accountNonce)
      expect(replacement.maxFeePerGas * 100n >= original.maxFeePerGas * 110n).to.equal(true)
      expect(replacement.maxPriorityFeePerGas * 100n >= original.maxPriorityFeePerGas * 110n).to.equal(true)
      const pending = right(submitter.send(replacement, MINED_WITHIN_MS))
      // Mined only once the replacement is in the node's pool (else the block would carry the original).
      await eventually(async () => (await rpc.read('eth_getTransactionByHash', [replacement.txHash])) !== null)
      await rpc.read('evm_mine')
      const receipt = mined(await pending)
      expect(receipt.txHash).to.equal(replacement.txHash)
      expect(await right(submitter.receiptOf([original.txHash, replacement.txHash]))).to.deep.equal(O.some(receipt))
    } finally {
      await rpc.read('evm_setAutomine', [true])
    }
  })

  it('still replaces once light blocks took the base fee far below the tip (no cap set: the tip is inside it)', async () => {
    // 64 empty blocks: each lowers the base fee by 1/8, to a few ten-thousandths of the tip.
    await rpc.read('anvil_mine', ['0x40'])
    const block = (await rpc.read('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string }
    const tip = BigInt(String(await rpc.read('eth_maxPriorityFeePerGas')))
    expect(BigInt(block.baseFeePerGas) * 8n < tip).to.equal(true)
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0x56BC75E2D63100000'])
    const fresh = makeRpcTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key })
    await rpc.read('evm_setAutomine', [false])
    try {
      const payer = chain.payers[2]!
      const { authorization, signature } = await signedBy(payer, domain, authorizationFrom(payer, payee, 9n))
      const original = await right(fresh.prepare(authorization, signature))
      expect(await right(fresh.send(original, 200))).to.deep.equal({ _tag: 'Unconfirmed' })
      const replacement = prepared(await right(fresh.prepareReplacement(original)))
      expect(replacement.maxPriorityFeePerGas * 100n >= original.maxPriorityFeePerGas * 110n).to.equal(true)
      const pending = right(fresh.send(replacement, MINED_WITHIN_MS))
      await eventually(async () => (await rpc.read('eth_getTransactionByHash', [replacement.txHash])) !== null)
      await rpc.read('evm_mine')
      expect(mined(await pending).txHash).to.equal(replacement.txHash)
    } finally {
      await rpc.read('evm_setAutomine', [true])
    }
  })

  it('answers AtFeeCap, signing nothing, when the cap leaves no room for a 10 % raise', async () => {
    const block = (await rpc.read('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string }
    const cap = BigInt(block.baseFeePerGas) * 2n
    const capped = makeRpcTransferSubmitter({
      rpc,
      token: chain.tokenAddress,
      privateKey: generatePrivateKey(),
      maxFeePerGas: cap,
    })
    const { authorization, signature } = await signedBy(
      chain.payers[2]!,
      domain,
      authorizationFrom(chain.payers[2]!, payee, 7n),
    )
    const original = await right(capped.prepare(authorization, signature))
    expect(original.maxFeePerGas).to.equal(cap)
    expect(await right(capped.prepareReplacement(original))).to.deep.equal({ _tag: 'AtFeeCap' })
  })
})
