import type { Address, Authorization, Eip712Domain, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import secp256k1 from 'secp256k1'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { makeChainRpc, type ChainRpc } from '../src/chain-rpc.js'
import { bytesToHex, hexToBytesStrict } from '../src/hex-bytes.js'
import { startLocalChain, type LocalAccount, type LocalChain } from '../src/local-chain.js'
import { makeTransferAuthorizationDigest } from '../src/transfer-authorization-digest.js'
import { makeViemTokenReader } from '../src/viem-token-reader.js'
import { makeViemTransferSubmitter, type ReceiptMode } from '../src/viem-transfer-submitter.js'
import { authorizationFrom, right } from './fixtures.js'

const TRANSFERS = 600
const CONCURRENCY = 32
const payee = '0x00000000000000000000000000000000000000f1' as Address

/** Signs authorizations with libsecp256k1 directly: viem's typed-data signing would dominate the set-up time. */
const fastSigner = (domain: Eip712Domain) => {
  const digestOf = makeTransferAuthorizationDigest(domain)
  return (payer: LocalAccount, authorization: Authorization): Hex => {
    const { signature, recid } = secp256k1.ecdsaSign(digestOf(authorization) as Uint8Array, hexToBytesStrict(payer.privateKey)!)
    return `${bytesToHex(signature)}${(27 + recid).toString(16)}` as Hex
  }
}

describe('throughput (anvil, measurements)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let domain: Eip712Domain
  before(async () => {
    chain = await startLocalChain({ payers: 1, payerBalance: 10n ** 12n })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    domain = await right(makeViemTokenReader(rpc, chain.tokenAddress).domain)
  })
  after(async () => {
    await chain?.stop()
  })

  const run = async (receiptMode: ReceiptMode) => {
    const key = generatePrivateKey()
    await rpc.read('anvil_setBalance', [privateKeyToAddress(key), '0x56bc75e2d63100000'])
    const submitter = makeViemTransferSubmitter({ rpc, token: chain.tokenAddress, privateKey: key, receiptMode })
    const sign = fastSigner(domain)
    const payer = chain.payers[0]!
    const work = Array.from({ length: TRANSFERS }, (_, i) => {
      const authorization = authorizationFrom(payer, payee, BigInt(i + 1))
      return { authorization, signature: sign(payer, authorization) }
    })
    await submitter.receiptMode()
    let minedCount = 0
    const t = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < work.length) {
          const { authorization, signature } = work[next++]!
          const prepared = await right(submitter.prepare(authorization, signature))
          const outcome = await right(submitter.send(prepared, 30_000))
          if (outcome._tag === 'Mined' && outcome.receipt.succeeded) minedCount++
        }
      }),
    )
    const seconds = (performance.now() - t) / 1_000
    console.log(`      ${receiptMode}: ${TRANSFERS} settlements (prepare + send + receipt) at concurrency ${CONCURRENCY}: ${(TRANSFERS / seconds).toFixed(0)} tx/s`)
    expect(minedCount).to.equal(TRANSFERS)
  }

  it('measures settlements per second with the receipt watcher', async () => run('watcher'))
  it('measures settlements per second with EIP-7966 sync sends', async () => run('sync'))
})
