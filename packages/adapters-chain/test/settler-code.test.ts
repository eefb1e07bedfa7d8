import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import { encodeDeployData, numberToHex } from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { batchSettlerImmutables } from '../src/generated/batch-settler.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { deploySettler } from '../src/evm/settler/settler-deployment.js'
import { readSettlerCode } from '../src/evm/settler/settler-code.js'
import { fakeSettlerAbi, fakeSettlerBytecode } from '../test-fixtures/generated/fake-settler.js'
import { deployedContract } from './batch-settler-calls.js'

describe("a settler's runtime code compared with the compiled BatchSettler, its immutables filled (docs/ARCHITECTURE.md §5.7, anvil)", () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let settler: Address
  before(async () => {
    chain = await startLocalChain({ payers: 0 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    settler = await deployed(chain.tokenAddress, 300_000n)
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  const deployed = async (token: Address, itemGasLimit: bigint) =>
    (
      await deploySettler({
        rpcUrl: chain.rpcUrl,
        token,
        deployerKey: chain.facilitator.privateKey,
        settlers: [],
        itemGasLimit,
        pollingIntervalMs: 20,
      })
    ).address
  const codeOf = async (address: Address) => (await rpc.read('eth_getCode', [address, 'latest'])) as Hex
  /** A contract at a fresh address running `code` (anvil_setCode). */
  let next = 0xc0de00
  const running = async (code: Hex): Promise<Address> => {
    const address = `0x${(next++).toString(16).padStart(40, '0')}` as Address
    await rpc.read('anvil_setCode', [address, code])
    return address
  }

  it('recognises every real deployment, whatever its token and itemGasLimit (a plain code hash would not)', async () => {
    const other = await deployed(chain.smartWallets.factory, 1_234_567n)
    expect(await codeOf(other)).to.not.equal(await codeOf(settler))
    expect(await readSettlerCode(rpc, settler)).to.deep.equal({
      _tag: 'Answered',
      token: chain.tokenAddress,
      itemGasLimit: 300_000n,
      compiled: true,
    })
    expect(await readSettlerCode(rpc, other)).to.deep.equal({
      _tag: 'Answered',
      token: chain.smartWallets.factory,
      itemGasLimit: 1_234_567n,
      compiled: true,
    })
  })

  it('tells a contract that answers like a settler but runs other code (a fake that reports items it never paid)', async () => {
    const data = encodeDeployData({
      abi: fakeSettlerAbi,
      bytecode: fakeSettlerBytecode,
      args: [chain.tokenAddress, 300_000n],
    })
    const fake = await deployedContract(rpc, chain.facilitator.address, data)
    expect(await readSettlerCode(rpc, fake)).to.deep.equal({
      _tag: 'Answered',
      token: chain.tokenAddress,
      itemGasLimit: 300_000n,
      compiled: false,
    })
  })

  it('tells another build of the same source (its metadata hash differs) and a code whose token differs where it is used from where it is read', async () => {
    const code = await codeOf(settler)
    // The CBOR metadata ending the runtime code: …0x58 0x22 <34-byte IPFS hash of the sources> "solc" <version>
    // <length>. Another build of a changed source has another hash: its last byte flipped here.
    expect(code.slice(-22)).to.match(/^64736f6c6343[0-9a-f]{6}0033$/)
    const last = code.length - 24
    const rebuilt =
      `${code.slice(0, last)}${(parseInt(code.slice(last, last + 2), 16) ^ 0xff).toString(16).padStart(2, '0')}${code.slice(last + 2)}` as Hex
    expect(await readSettlerCode(rpc, await running(rebuilt))).to.deep.include({
      compiled: false,
      token: chain.tokenAddress,
    })
    // token() reads the first reference; the call of the token uses another: pointed elsewhere, the getter still
    // answers the token.
    const used = batchSettlerImmutables.token[1]
    const elsewhere = numberToHex(0xbadn, { size: 32 }).slice(2)
    const twoFaced =
      `${code.slice(0, 2 + 2 * used.start)}${elsewhere}${code.slice(2 + 2 * (used.start + used.length))}` as Hex
    expect(await readSettlerCode(rpc, await running(twoFaced))).to.deep.include({
      compiled: false,
      token: chain.tokenAddress,
    })
    // The unchanged code at another address is recognised: the comparison is of code and immutables, not of addresses.
    expect(await readSettlerCode(rpc, await running(code))).to.deep.include({ compiled: true })
  })

  it('a contract without the getters is none; an address without code neither', async () => {
    expect(await readSettlerCode(rpc, chain.tokenAddress)).to.deep.equal({ _tag: 'NoGetter', getter: 'token' })
    expect(await readSettlerCode(rpc, '0x00000000000000000000000000000000005e7713')).to.deep.equal({ _tag: 'NoCode' })
  })
})
