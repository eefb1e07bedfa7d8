import type { EvmAddress as Address, Authorization, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { serializeErc6492Signature } from 'viem'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeSettlerBatches } from '../src/evm/settler/settler-batch.js'

const PAYER: Address = '0x00000000000000000000000000000000000000a1'
const PAYEE: Address = '0x00000000000000000000000000000000000000b2'
const SIGNATURE: Hex = `0x${'ab'.repeat(64)}1b`

/** docs/ARCHITECTURE.md §5.7: what a settler call may carry, decided by the submitter (no node read). */
describe('settler batches: mayBatch', () => {
  const batches = makeSettlerBatches({
    rpc: {} as ChainRpc,
    settler: '0x00000000000000000000000000000000000005e7',
    itemGasLimit: 300_000n,
    signNext: () => Promise.reject(new Error('nothing is signed here')),
  })
  const authorization: Authorization = {
    from: PAYER,
    to: PAYEE,
    value: 1_000_000n,
    validAfter: 0n,
    validBefore: 2n ** 40n,
    nonce: `0x${'01'.repeat(32)}`,
  }

  it('an EIP-3009 payment whose trial fits the item bound: yes', () => {
    expect(batches.mayBatch({ authorization, signature: SIGNATURE, executionGas: 60_000n })).to.equal(true)
  })

  it('an ERC-6492 payer not yet deployed (its wallet deployed in its own transaction through Multicall3): no', () => {
    const wrapped = serializeErc6492Signature({
      address: '0x00000000000000000000000000000000000fac70',
      data: '0x5fbfb9cf',
      signature: SIGNATURE,
    })
    expect(batches.mayBatch({ authorization, signature: wrapped, executionGas: 60_000n })).to.equal(false)
  })

  it('a trial above the item bound: no', () => {
    expect(batches.mayBatch({ authorization, signature: SIGNATURE, executionGas: 290_000n })).to.equal(false)
  })
})
