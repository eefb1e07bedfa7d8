import { expect } from 'chai'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { makeFeeOracle, type Fees } from '../src/evm/submission/fee-oracle.js'

const GWEI = 1_000_000_000n
const hex = (n: bigint) => `0x${n.toString(16)}`

/** A node whose latest base fee and tip the test sets; answers only the two reads the oracle makes. */
const nodeWith = (fees: { baseFee: bigint; tip: bigint }) => {
  const read = async (method: string): Promise<unknown> => {
    if (method === 'eth_getBlockByNumber') return { baseFeePerGas: hex(fees.baseFee) }
    if (method === 'eth_maxPriorityFeePerGas') return hex(fees.tip)
    throw new Error(`unexpected ${method}`)
  }
  const unused = () => {
    throw new Error('not a read')
  }
  const rpc: ChainRpc = {
    rpcUrl: 'fake',
    timeoutMs: 1,
    pollingIntervalMs: 1,
    read,
    write: unused,
    writeBatch: unused,
    callWithTimeout: unused,
    onPrimaryChange: () => () => undefined,
    checkUrls: async () => [],
    close: () => {},
  }
  return { rpc, fees }
}

const raisedTenPercent = (next: Fees, previous: Fees) =>
  next.maxFeePerGas * 100n >= previous.maxFeePerGas * 110n &&
  next.maxPriorityFeePerGas * 100n >= previous.maxPriorityFeePerGas * 110n

describe('fee oracle (docs/ARCHITECTURE.md §5.3–5.4)', () => {
  it('estimates twice the base fee plus the tip', async () => {
    const { rpc } = nodeWith({ baseFee: 10n * GWEI, tip: GWEI })
    expect(await makeFeeOracle(rpc, { cacheMs: 0 }).current()).to.deep.equal({
      maxFeePerGas: 21n * GWEI,
      maxPriorityFeePerGas: GWEI,
    })
  })

  it('no MAX_FEE_PER_GAS: the cap follows the base fee, so after a tenfold rise a replacement still outbids the first attempt', async () => {
    const node = nodeWith({ baseFee: 10n * GWEI, tip: GWEI })
    const oracle = makeFeeOracle(node.rpc, { cacheMs: 0 })
    const first = await oracle.current()
    node.fees.baseFee = 100n * GWEI
    const replacement = await oracle.replacing(first)
    expect(replacement).to.deep.equal({ maxFeePerGas: 201n * GWEI, maxPriorityFeePerGas: (11n * GWEI) / 10n })
    expect(raisedTenPercent(replacement!, first)).to.equal(true)
  })

  it('no MAX_FEE_PER_GAS, fees steady: raises by 10 % up to three times the base fee and tip, then answers undefined', async () => {
    const { rpc } = nodeWith({ baseFee: 10n * GWEI, tip: GWEI })
    const oracle = makeFeeOracle(rpc, { cacheMs: 0 })
    const cap = 33n * GWEI
    const offers: Fees[] = [await oracle.current()]
    // 21 → 23.1 → 25.41 → 27.951 → 30.7461 gwei; 10 % more (33.82) would pass the cap.
    for (
      let next = await oracle.replacing(offers[0]!);
      next !== undefined && offers.length < 10;
      next = await oracle.replacing(offers.at(-1)!)
    ) {
      expect(raisedTenPercent(next, offers.at(-1)!)).to.equal(true)
      expect(next.maxFeePerGas <= cap).to.equal(true)
      offers.push(next)
    }
    expect(offers).to.have.length(5)
  })

  it('no MAX_FEE_PER_GAS, a tip that dwarfs the base fee (anvil after light blocks): replacements still outbid', async () => {
    // 3 × base + tip left a first attempt of 2 × base + tip no room for 10 % more: a parked transaction stayed parked.
    const { rpc } = nodeWith({ baseFee: 7n, tip: GWEI })
    const oracle = makeFeeOracle(rpc, { cacheMs: 0 })
    const offers: Fees[] = [await oracle.current()]
    for (
      let next = await oracle.replacing(offers[0]!);
      next !== undefined && offers.length < 20;
      next = await oracle.replacing(offers.at(-1)!)
    ) {
      expect(raisedTenPercent(next, offers.at(-1)!)).to.equal(true)
      offers.push(next)
    }
    // 1 → 1.1 → … → 2.85 gwei, under the cap of 3 gwei (and 21 wei).
    expect(offers).to.have.length(12)
  })

  it("an operator's MAX_FEE_PER_GAS is a hard bound however far fees rise; at it, no replacement", async () => {
    const node = nodeWith({ baseFee: 10n * GWEI, tip: GWEI })
    const oracle = makeFeeOracle(node.rpc, { cacheMs: 0, maxFeePerGas: 15n * GWEI })
    const first = await oracle.current()
    expect(first).to.deep.equal({ maxFeePerGas: 15n * GWEI, maxPriorityFeePerGas: GWEI })
    node.fees.baseFee = 100n * GWEI
    expect(await oracle.current()).to.deep.equal(first)
    expect(await oracle.replacing(first)).to.equal(undefined)
  })

  it('no replacement when only the tip could not rise by 10 % within the cap', async () => {
    const { rpc } = nodeWith({ baseFee: 0n, tip: 10n * GWEI })
    const oracle = makeFeeOracle(rpc, { cacheMs: 0, maxFeePerGas: 10n * GWEI })
    expect(await oracle.replacing({ maxFeePerGas: 9n * GWEI, maxPriorityFeePerGas: 10n * GWEI })).to.equal(undefined)
  })
})
