import type { EvmAddress as Address, Authorization, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { encodeFunctionData, keccak256, parseTransaction, recoverTransactionAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { demoUsdAbi } from '../src/generated/demo-usd.js'
import { makeSecp256k1TransactionSigner } from '../src/evm/signing/transaction-signer.js'
import { transferCallData } from '../src/evm/token/transfer-call.js'

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`
const below = (limit: bigint): bigint => BigInt(`0x${randomBytes(32).toString('hex')}`) % limit

describe('transaction signing and calldata (byte for byte as viem)', () => {
  it('signs EIP-1559 transactions exactly as viem signTransaction, nonce 0 and small and large fees included', async () => {
    for (let i = 0; i < 40; i++) {
      const key = generatePrivateKey()
      const maxFeePerGas = i % 5 === 0 ? 1n : below(10n ** 12n) + 1n
      const tx = {
        chainId: [1, 8453, 31337, 84532][i % 4]!,
        nonce: i < 4 ? i : Number(below(1n << 40n)),
        to: hex(20) as Address,
        data: hex(i % 2 === 0 ? 292 : 324),
        gas: 21_000n + below(1_000_000n),
        maxFeePerGas,
        maxPriorityFeePerGas: i % 7 === 0 ? 0n : below(maxFeePerGas + 1n),
      }
      const ours = makeSecp256k1TransactionSigner(key).sign(tx)
      const viems = await privateKeyToAccount(key).signTransaction({ type: 'eip1559', value: 0n, ...tx })
      expect(ours.raw).to.equal(viems)
      expect(ours.hash).to.equal(keccak256(viems))
      expect(await recoverTransactionAddress({ serializedTransaction: ours.raw as `0x02${string}` })).to.equal(
        privateKeyToAccount(key).address,
      )
      expect(parseTransaction(ours.raw as `0x02${string}`)).to.deep.include({
        nonce: tx.nonce,
        gas: tx.gas,
        chainId: tx.chainId,
      })
    }
  })

  it('encodes transferWithAuthorization as encodeFunctionData does, in the v,r,s form (v as given: 0/1 is mapped before, for a key only) and the bytes form', () => {
    for (let i = 0; i < 20; i++) {
      const a: Authorization = {
        from: hex(20) as Address,
        to: hex(20) as Address,
        value: below(1n << 256n),
        validAfter: below(1n << 64n),
        validBefore: below(1n << 256n),
        nonce: hex(32) as Authorization['nonce'],
      }
      const v = [0, 1, 27, 28][i % 4]!
      const signature = `${hex(64)}${v.toString(16).padStart(2, '0')}` as Hex
      const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const
      expect(transferCallData(a, signature)).to.equal(
        encodeFunctionData({
          abi: demoUsdAbi,
          functionName: 'transferWithAuthorization',
          args: [...args, v, `0x${signature.slice(2, 66)}`, `0x${signature.slice(66, 130)}`],
        }),
      )
      const long = hex(97)
      expect(transferCallData(a, long)).to.equal(
        encodeFunctionData({ abi: demoUsdAbi, functionName: 'transferWithAuthorization', args: [...args, long] }),
      )
    }
  })
})
