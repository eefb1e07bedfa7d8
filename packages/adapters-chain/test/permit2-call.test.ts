import type { EvmAddress as Address, Authorization, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { toFunctionSelector, toHex, type AbiFunction } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { exactProxyAbi, permit2ErrorsAbi, uptoProxyAbi } from '../src/evm/permit2/permit2-abi.js'
import { decodePermit2Call, permit2CallData, type Permit2Authorization } from '../src/evm/permit2/permit2-call.js'
import { permit2ErrorReason } from '../src/evm/permit2/permit2-reader.js'
import { makeSettlerBatches } from '../src/evm/settler/settler-batch.js'
import { permit2Abi, x402ExactPermit2ProxyAbi, x402UptoPermit2ProxyAbi } from '../src/testing/index.js'

const selectors = (abi: readonly { type: string }[], type: 'function' | 'error') =>
  abi
    .filter((item) => item.type === type)
    .map((item) => toFunctionSelector(item as AbiFunction))
    .sort()

const token: Address = '0x00000000000000000000000000000000000000aa'
const base: Authorization = {
  from: '0x00000000000000000000000000000000000000bb',
  to: '0x00000000000000000000000000000000000000cc',
  value: 400n,
  validAfter: 0n,
  validBefore: 1_900_000_000n,
  nonce: `0x${'ab'.repeat(32)}`,
}
const signature: Hex = `0x${'11'.repeat(64)}1b`
const sponsoredPermit = { value: 1_000n, nonce: 3n, deadline: 1_900_000_000n, signature }

describe('Permit2 settle calls (permit2-call.ts, pure)', () => {
  it('the hand-written proxy and error ABIs have the compiled contracts’ selectors', () => {
    const settles = (abi: readonly { type: string; name?: string }[]) =>
      selectors(
        abi.filter((item) => item.name === 'settle' || item.name === 'settleWithPermit'),
        'function',
      )
    expect(settles(exactProxyAbi)).to.deep.equal(settles(x402ExactPermit2ProxyAbi))
    expect(settles(uptoProxyAbi)).to.deep.equal(settles(x402UptoPermit2ProxyAbi))
    const compiledErrors = new Set([
      ...selectors(x402UptoPermit2ProxyAbi, 'error'),
      ...selectors(x402ExactPermit2ProxyAbi, 'error'),
      ...selectors(permit2Abi, 'error'),
    ])
    for (const selector of selectors(permit2ErrorsAbi, 'error')) expect(compiledErrors.has(selector)).to.equal(true)
  })

  for (const scheme of ['exact', 'upto'] as const)
    for (const sponsored of [false, true])
      it(`${scheme}${sponsored ? ' with a sponsored permit' : ''}: the input decodes back to owner, payee, amount and nonce`, () => {
        const a: Permit2Authorization = {
          ...base,
          permit2: {
            scheme,
            permitted: 1_000n,
            spender: '0x00000000000000000000000000000000000000dd',
            ...(scheme === 'upto' ? { facilitator: '0x00000000000000000000000000000000000000ee' as Address } : {}),
            ...(sponsored ? { sponsoredPermit } : {}),
          },
        }
        const decoded = decodePermit2Call(permit2CallData(a, signature, token))
        // exact moves the permitted amount; upto the row's value, never the maximum.
        expect(decoded).to.deep.equal({
          owner: a.from,
          to: a.to,
          amount: scheme === 'exact' ? 1_000n : 400n,
          nonce: a.nonce,
          token,
        })
      })

  it('decodes no other input', () => {
    expect(decodePermit2Call('0xa9059cbb')).to.equal(undefined)
    expect(decodePermit2Call(toHex(new Uint8Array(100)))).to.equal(undefined)
  })

  it('names the proxy’s and Permit2’s custom errors', () => {
    expect(permit2ErrorReason('0x756688fe')).to.match(/^InvalidNonce\(\): Permit2/)
    expect(permit2ErrorReason('0x12345678')).to.equal(undefined)
  })

  it('a settler never carries a Permit2 payment; an EIP-3009 one as before', () => {
    const batches = makeSettlerBatches({
      rpc: {} as ChainRpc,
      settler: '0x00000000000000000000000000000000000000ff',
      itemGasLimit: 200_000n,
      signNext: () => Promise.reject(new Error('not signed here')),
    })
    const permit2 = { scheme: 'exact' as const, permitted: 400n, spender: base.to }
    expect(batches.mayBatch({ authorization: base, signature, executionGas: 60_000n })).to.equal(true)
    expect(batches.mayBatch({ authorization: { ...base, permit2 }, signature, executionGas: 60_000n })).to.equal(false)
  })
})
