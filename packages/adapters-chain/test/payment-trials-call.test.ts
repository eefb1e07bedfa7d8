import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { decodeAbiParameters, encodeAbiParameters, encodeDeployData } from 'viem'
import { paymentTrialsAbi, paymentTrialsBytecode } from '../src/generated/payment-trials.js'
import { decodeTrialsResult, encodeTrialsDeployData, type TrialInput } from '../src/evm/token/payment-trials-call.js'

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString('hex')}`
const address = (): Address => hex(20)
const RESULT = [{ type: 'uint256' }, { type: 'uint256[]' }, { type: 'bytes[]' }] as const

describe('payment trials codec (byte for byte as viem)', () => {
  it('encodes the init code as encodeDeployData does: no payment, one, many, calldata of every length up to 8 KiB', () => {
    const lengths = [0, 1, 31, 32, 33, 292, 356, 1_000, 8_192]
    const payments: TrialInput[] = lengths.map((n) => ({
      payer: address(),
      payee: address(),
      nonce: hex(32),
      target: address(),
      data: hex(n),
    }))
    for (const batch of [[], payments.slice(0, 1), payments]) {
      const token = address()
      const gasCap = 1_000_000n
      expect(encodeTrialsDeployData(token, batch, gasCap)).to.equal(
        encodeDeployData({ abi: paymentTrialsAbi, bytecode: paymentTrialsBytecode, args: [token, batch, gasCap] }),
      )
    }
  })

  it('decodes what abi.encode(uint256, uint256[], bytes[]) writes, and refuses what it does not', () => {
    for (const answers of [[], ['0x'], ['0x', hex(4), hex(100), '0x', hex(256)]] as Hex[][]) {
      const words = Array.from({ length: 6 * answers.length }, (_, i) => BigInt(i) * 10n ** 30n)
      const encoded = encodeAbiParameters(RESULT, [1_700_000_000n, words, answers])
      expect(decodeTrialsResult(encoded)).to.deep.equal({
        blockTime: 1_700_000_000n,
        words,
        answers: [...decodeAbiParameters(RESULT, encoded)[2]],
      })
    }
    const good = encodeAbiParameters(RESULT, [1n, [1n, 2n], [hex(40)]])
    for (const bad of [
      '0x',
      '0x12',
      good.slice(0, -64),
      `${good.slice(0, 66)}${'00'.repeat(31)}21${good.slice(130)}`,
      `${good.slice(0, 66)}${'ff'.repeat(32)}${good.slice(130)}`,
    ]) {
      expect(() => decodeTrialsResult(bad), bad.slice(0, 80)).to.throw()
    }
  })
})
