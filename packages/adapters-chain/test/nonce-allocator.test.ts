import { expect } from 'chai'
import { makeNonceAllocator } from '../src/evm/submission/nonce-allocator.js'

describe('nonce allocator: a reorg rewinds the mined count (docs/ARCHITECTURE.md §5.6)', () => {
  it('the floor follows the mined count down: the nonces a reorg took back can be adopted, new ones stay above', async () => {
    const nonces = makeNonceAllocator(async () => 5n)
    const handedOut = [await nonces.allocate(), await nonces.allocate(), await nonces.allocate()]
    expect(handedOut).to.deep.equal([5n, 6n, 7n])
    for (const n of handedOut) nonces.markBroadcast(n)
    nonces.observeMined(8n)
    // Mined: nothing to adopt below the floor.
    expect(nonces.adopt(6n)).to.equal(false)
    // A reorg: only nonce 5 is mined on the new chain.
    nonces.observeMined(6n)
    expect(nonces.adopt(6n)).to.equal(true)
    expect(nonces.adopt(7n)).to.equal(true)
    expect(nonces.adopt(5n)).to.equal(false)
    // New settles are not handed the nonces the reorg took back.
    expect(await nonces.allocate()).to.equal(8n)
    // The chain moves on past them again: forgotten.
    nonces.observeMined(9n)
    expect(nonces.adopt(7n)).to.equal(false)
  })
})

describe('nonce allocator: a nonce whose transaction the journal may name (docs/ARCHITECTURE.md §5.3)', () => {
  it('set aside, it is never handed out again, though the chain counts it pending; recovery adopts it or fills it', async () => {
    // The node refused the transaction at 5 and its row's release did not answer: the chain's pending count stays 5.
    const nonces = makeNonceAllocator(async () => 5n)
    const refused = await nonces.allocate()
    nonces.setAside(refused)
    expect(await nonces.allocate()).to.equal(6n)
    nonces.markBroadcast(6n)
    // Not a nonce being prepared: later sends are not held back for it.
    expect(nonces.lowestPrepared(() => false)).to.equal(undefined)
    // Recovery, reading the journal: a row still names it (adopted, its attempt sent again) or none does (a gap,
    // filled).
    expect(nonces.adopt(5n)).to.equal(true)
    expect(await nonces.allocate()).to.equal(7n)
    // Once mined, gone.
    nonces.observeMined(6n)
    expect(nonces.adopt(5n)).to.equal(false)
  })
})
