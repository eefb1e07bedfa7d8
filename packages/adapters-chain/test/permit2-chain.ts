import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { deployDemoUsdt, deployPermit2Suite, type DemoUsdt, type Permit2Suite } from '../src/testing/index.js'
import { approvePermit2 } from './permit2-payments.js'

/** What the Permit2 proxy suites run on: anvil, Permit2 and the proxies, DUSDT held by two payers who approved Permit2. */
export interface Permit2Chain {
  readonly chain: LocalChain
  readonly rpc: ChainRpc
  readonly suite: Permit2Suite
  readonly dusdt: DemoUsdt
}

/** The suite's chain, made before it and stopped after it; read its parts inside the tests. */
export const permit2Chain = (payerUnits: bigint): Permit2Chain => {
  const parts: Partial<Permit2Chain> = {}
  before(async () => {
    const chain = await startLocalChain({ payers: 2 })
    const rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    Object.assign(parts, { chain, rpc })
    const suite = await deployPermit2Suite(rpc)
    const dusdt = await deployDemoUsdt(rpc, { payers: chain.payers.map((p) => p.address), units: payerUnits })
    for (const payer of chain.payers) await approvePermit2(rpc, suite, dusdt.address, payer.address)
    Object.assign(parts, { suite, dusdt })
  })
  after(async () => {
    parts.rpc?.close()
    await parts.chain?.stop()
  })
  const ready = <K extends keyof Permit2Chain>(key: K): Permit2Chain[K] => {
    const part = parts[key]
    if (part === undefined) throw new Error(`the Permit2 chain's ${key} is read before its suite started`)
    return part as Permit2Chain[K]
  }
  return {
    get chain() {
      return ready('chain')
    },
    get rpc() {
      return ready('rpc')
    },
    get suite() {
      return ready('suite')
    },
    get dusdt() {
      return ready('dusdt')
    },
  }
}
