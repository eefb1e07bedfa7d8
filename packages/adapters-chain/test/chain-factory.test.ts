import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { parseCaip2 } from '@x402-facilitator/domain'
import { eip155ChainId, eip155Network } from '../src/evm/caip2.js'
import { makeChain, type Chain } from '../src/evm/chain.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { right } from './fixtures.js'

const STRANGER: Address = '0x00000000000000000000000000000000000000bb'

describe('makeChain: one network built from its configuration (anvil)', () => {
  let local: LocalChain
  let chain: Chain

  before(async () => {
    local = await startLocalChain({ payers: 1, settler: true })
    chain = makeChain({
      rpcUrls: [local.rpcUrl],
      tokens: [{ address: local.tokenAddress, settler: local.settlerAddress }],
      privateKeys: [local.facilitator.privateKey],
      accounts: [local.facilitator.address],
      multicall3: local.smartWallets.multicall3,
      erc6492Factories: [local.smartWallets.factory],
    })
  })
  after(async () => {
    await chain?.stop()
    await local?.stop()
  })

  it('reads what start-up and /readyz need: network, head, gas, pending transactions, code, the settler', async () => {
    const { readiness } = chain
    expect(await readiness.network()).to.equal(`eip155:${local.chainId}`)
    expect(await readiness.head()).to.be.a('bigint')
    expect((await readiness.gasBalance(local.facilitator.address)) > 0n).to.equal(true)
    expect(await readiness.gasBalance(STRANGER)).to.equal(0n)
    expect(await readiness.pendingTransactions(local.facilitator.address)).to.equal(0n)
    expect(await readiness.hasCode(local.tokenAddress)).to.equal(true)
    expect(await readiness.hasCode(STRANGER)).to.equal(false)
    expect(await readiness.settlerAllows(local.settlerAddress!, local.facilitator.address)).to.equal(true)
    expect(await readiness.settlerAllows(local.settlerAddress!, STRANGER)).to.equal(false)
    const accounts = [local.facilitator.address]
    const settler = { address: local.settlerAddress!, setting: 'SETTLER_ADDRESS', token: local.tokenAddress, accounts }
    await readiness.checkSettler(settler)
    const messageOf = (check: Promise<void>) =>
      check.then(
        () => undefined,
        (error: Error) => error.message,
      )
    const refused = await messageOf(readiness.checkSettler({ ...settler, accounts: [STRANGER] }))
    expect(refused).to.match(new RegExp(`does not let the facilitator ${STRANGER} settle: call setSettler`))
    const elsewhere = await messageOf(readiness.checkSettler({ ...settler, address: STRANGER }))
    expect(elsewhere).to.match(/SETTLER_ADDRESS 0x0+bb has no code on this chain/)
  })

  it('builds one submitter per key, the token reader, and reads the settler item gas limit', async () => {
    expect(chain.submitters.map((s) => s.account)).to.deep.equal([local.facilitator.address])
    expect(chain.submitters[0]!.submitter.prepareBatch, 'a settler: batches').to.be.a('function')
    expect((await right(chain.tokenReader.tokenInfo)).symbol).to.equal(local.tokenSymbol)
    expect(await chain.settlerItemGasLimit())
      .to.be.a('bigint')
      .and.not.equal(0n)
  })
})

describe('CAIP-2 networks', () => {
  it('split at the first colon; eip155 chain ids only from decimal references', () => {
    expect(parseCaip2('eip155:8453')).to.deep.equal({ namespace: 'eip155', reference: '8453' })
    const solana = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
    expect(parseCaip2(`solana:${solana}`)).to.deep.equal({ namespace: 'solana', reference: solana })
    expect(parseCaip2('base-sepolia')).to.equal(undefined)
    expect(eip155ChainId('eip155:84532')).to.equal(84532)
    expect(eip155ChainId('eip155:abc')).to.equal(undefined)
    expect(eip155ChainId('solana:1')).to.equal(undefined)
    expect(eip155Network(31337)).to.equal('eip155:31337')
  })
})
