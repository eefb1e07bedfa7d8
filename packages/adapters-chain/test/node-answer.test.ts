import { CanonicalBytes32, UintFromString } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { classifyRpcError, decodeAnswer, fieldOf, UndecodableAnswer } from '../src/rpc-failure.js'

describe('node answers', () => {
  it('decodes what JSON-RPC allows: quantities, hashes (in lower case), fields of objects', () => {
    expect(decodeAnswer(UintFromString, 'a nonce', '0x1f')).to.equal(31n)
    expect(decodeAnswer(CanonicalBytes32, 'a hash', `0x${'AB'.repeat(32)}`)).to.equal(`0x${'ab'.repeat(32)}`)
    expect(fieldOf({ status: '0x1' }, 'status')).to.equal('0x1')
    expect(fieldOf(null, 'status')).to.equal(undefined)
  })

  it('names what a garbled answer should have been, and reads as a transport failure (the node may have acted), not a refusal', () => {
    let thrown: unknown
    try {
      decodeAnswer(UintFromString, 'the answer to eth_getTransactionCount', null)
    } catch (error) {
      thrown = error
    }
    expect(thrown).to.be.instanceOf(UndecodableAnswer)
    expect(thrown).to.have.property('message', 'the answer to eth_getTransactionCount: expected a non-negative integer string, got null')
    expect(classifyRpcError(thrown).kind).to.equal('transport')
  })
})
