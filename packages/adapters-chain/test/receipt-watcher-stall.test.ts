import type { EvmAddress as Address, Hex, TransferReceipt } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { makeReceiptWatcher } from '../src/evm/submission/receipt-watcher.js'
import { makeSecp256k1TransactionSigner } from '../src/evm/signing/transaction-signer.js'

const payee: Address = '0x00000000000000000000000000000000000000dd'
const HOUR_MS = 3_600_000

/** Only the hash matters here: the watcher hands the node's receipt to the reading its waiter brought. */
const asReceipt = async (receipt: unknown): Promise<TransferReceipt> => {
  const r = receipt as { transactionHash: Hex; blockNumber: Hex; blockHash: Hex; gasUsed: Hex; status: Hex }
  return {
    txHash: r.transactionHash,
    blockNumber: BigInt(r.blockNumber),
    blockHash: r.blockHash,
    gasUsed: BigInt(r.gasUsed),
    succeeded: r.status === '0x1',
  }
}

/**
 * Issue 38 item 6: a key must not sit idle behind a transaction the node parked or dropped. The node here is anvil
 * holding a later transaction of the key in its queued pool, the lowest never reaching it (as a dropped one).
 */
describe('receipt watcher: a stalled lowest transaction (anvil)', function () {
  this.timeout(60_000)
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

  const funded = async () => {
    const key = generatePrivateKey()
    const account = privateKeyToAddress(key).toLowerCase() as Address
    await rpc.read('anvil_setBalance', [account, '0xde0b6b3a7640000'])
    const signer = makeSecp256k1TransactionSigner(key)
    const sign = (nonce: number, tip = 10n ** 9n) =>
      signer.sign({
        chainId: chain.chainId,
        nonce,
        to: payee,
        data: '0x',
        gas: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: tip,
      })
    return { account, sign }
  }

  it('tells the lowest waiting transaction stalled once, while a later one waits; its waiter takes the replacement it then follows', async () => {
    const { account, sign } = await funded()
    const stalled: Hex[] = []
    let told: () => void
    const toldOnce = new Promise<void>((resolve) => (told = resolve))
    const watcher = makeReceiptWatcher({
      rpc,
      account,
      stalledAfterMs: 200,
      onStalled: (hash) => {
        stalled.push(hash)
        told()
      },
    })
    const lowest = sign(0)
    const later = sign(1)
    await rpc.write('eth_sendRawTransaction', [later.raw])
    const waits = [watcher.wait(lowest.hash, 0n, HOUR_MS, asReceipt), watcher.wait(later.hash, 1n, HOUR_MS, asReceipt)]
    await toldOnce
    expect(stalled).to.deep.equal([lowest.hash.toLowerCase()])

    const replacement = sign(0, 2n * 10n ** 9n)
    watcher.follow(lowest.hash, replacement.hash)
    await rpc.write('eth_sendRawTransaction', [replacement.raw])
    const [first, second] = await Promise.all(waits)
    expect(first?.txHash.toLowerCase()).to.equal(replacement.hash.toLowerCase())
    expect(second?.txHash.toLowerCase()).to.equal(later.hash.toLowerCase())
    expect(stalled).to.have.length(1)
  })

  it('the lowest waiting with nothing later behind it is never told stalled: a slow chain holds up no other transaction', async () => {
    const { account, sign } = await funded()
    const stalled: Hex[] = []
    const watcher = makeReceiptWatcher({ rpc, account, stalledAfterMs: 100, onStalled: (hash) => stalled.push(hash) })
    // Never sent: it waits its whole deadline, six times the stall bound, alone.
    expect(await watcher.wait(sign(0).hash, 0n, 600, asReceipt)).to.equal(undefined)
    expect(stalled).to.deep.equal([])
  })
})
