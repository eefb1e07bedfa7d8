import { HexBytes, type EvmAddress as Address, type Hex } from '@x402-facilitator/domain'
import { expect } from 'chai'
import {
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  hashDomain,
  parseSignature,
} from 'viem'
import { makeChainRpc, type ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { startLocalChain, type LocalChain } from '../src/testing/local-chain.js'
import { decodeAnswer, readQuantity } from '../src/evm/rpc/rpc-failure.js'
import {
  demoUsdtAbi,
  deployDemoUsdt,
  deployPermit2Suite,
  PERMIT2_ADDRESS,
  permit2Abi,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  x402ExactPermit2ProxyAbi,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
  x402UptoPermit2ProxyAbi,
  type DemoUsdt,
  type Permit2Suite,
} from '../src/testing/index.js'
import { permit2Bytecode } from '../test-fixtures/generated/permit2.js'
import { x402UptoPermit2ProxyBytecode } from '../test-fixtures/generated/x402-permit2-proxies.js'
import { eip3009TokenAbi } from '../src/evm/token/eip3009-token-abi.js'
import { mined, revertReasonOf } from './demo-token-calls.js'
import { nowSeconds } from './fixtures.js'
import { allowanceOf, signDemoUsdtPermit } from './permit2-payments.js'

// What Uniswap/permit2 script/DeployPermit2.s.sol and coinbase/x402 contracts/evm/script/Deploy.s.sol deploy with:
// Arachnid's CREATE2 deployer and the salts mined for the vanity addresses.
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'
const NONCE: Hex = `0x${'11'.repeat(32)}`
const PERMIT2_SALT: Hex = '0x0000000000000000000000000000000000000000d3af2663da51c10215000000'
const UPTO_SALT: Hex = '0x000000000000000000000000000000000000000000000000b000000001db633d'

describe('Permit2 and the x402 Permit2 proxies at their canonical addresses (anvil)', () => {
  let chain: LocalChain
  let rpc: ChainRpc
  let suite: Permit2Suite
  let dusdt: DemoUsdt

  before(async () => {
    chain = await startLocalChain({ payers: 1 })
    rpc = makeChainRpc({ rpcUrl: chain.rpcUrl })
    suite = await deployPermit2Suite(rpc)
    dusdt = await deployDemoUsdt(rpc, { payers: chain.payers.map((p) => p.address), units: 1_000_000n })
  })
  after(async () => {
    rpc?.close()
    await chain?.stop()
  })

  const read = async <A extends typeof permit2Abi | typeof x402ExactPermit2ProxyAbi>(
    to: Address,
    abi: A,
    functionName: string,
  ): Promise<unknown> => {
    const data = encodeFunctionData({ abi, functionName } as Parameters<typeof encodeFunctionData>[0])
    const answer = decodeAnswer(HexBytes, 'an eth_call result', await rpc.read('eth_call', [{ to, data }, 'latest']))
    return decodeFunctionResult({ abi, functionName, data: answer } as Parameters<typeof decodeFunctionResult>[0])
  }

  it('puts code at the addresses @x402/evm 2.27 signs for', async () => {
    expect([suite.permit2, suite.exactProxy, suite.uptoProxy]).to.deep.equal([
      PERMIT2_ADDRESS,
      X402_EXACT_PERMIT2_PROXY_ADDRESS,
      X402_UPTO_PERMIT2_PROXY_ADDRESS,
    ])
    for (const address of [PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS, X402_UPTO_PERMIT2_PROXY_ADDRESS])
      expect(String(await rpc.read('eth_getCode', [address, 'latest'])).length, address).to.be.greaterThan(1_000)
  })

  it("gives Permit2 the EIP-712 domain of its canonical address on this chain (name 'Permit2', chain id)", async () => {
    const expected = hashDomain({
      domain: { name: 'Permit2', chainId: suite.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    })
    expect(suite.chainId).to.equal(await readQuantity(rpc, 'eth_chainId'))
    expect(await read(PERMIT2_ADDRESS, permit2Abi, 'DOMAIN_SEPARATOR')).to.equal(expected)
  })

  it('points both proxies at the canonical Permit2', async () => {
    for (const [proxy, abi] of [
      [X402_EXACT_PERMIT2_PROXY_ADDRESS, x402ExactPermit2ProxyAbi],
      [X402_UPTO_PERMIT2_PROXY_ADDRESS, x402UptoPermit2ProxyAbi],
    ] as const)
      expect(String(await read(proxy, abi as typeof x402ExactPermit2ProxyAbi, 'PERMIT2')).toLowerCase()).to.equal(
        PERMIT2_ADDRESS,
      )
  })

  it('compiles Permit2 and the upto proxy byte for byte as upstream: their CREATE2 addresses are the canonical ones', () => {
    const upto = encodeDeployData({
      abi: x402UptoPermit2ProxyAbi,
      bytecode: x402UptoPermit2ProxyBytecode,
      args: [PERMIT2_ADDRESS],
    })
    const create2 = (salt: Hex, bytecode: Hex) =>
      getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt, bytecode }).toLowerCase()
    expect(create2(PERMIT2_SALT, permit2Bytecode)).to.equal(PERMIT2_ADDRESS)
    expect(create2(UPTO_SALT, upto)).to.equal(X402_UPTO_PERMIT2_PROXY_ADDRESS)
  })

  it('lets a payer approve Permit2 for DUSDT by an EIP-2612 signature, submitted by someone else', async () => {
    const payer = chain.payers[0]!
    const value = 500_000n
    const deadline = nowSeconds() + 600n
    const signature = await signDemoUsdtPermit(payer, suite.chainId, dusdt.address, {
      spender: PERMIT2_ADDRESS,
      value,
      nonce: 0n,
      deadline,
    })
    const { r, s, v } = parseSignature(signature)
    const permit = {
      from: chain.facilitator.address,
      to: dusdt.address,
      data: encodeFunctionData({
        abi: demoUsdtAbi,
        functionName: 'permit',
        args: [payer.address, PERMIT2_ADDRESS, value, deadline, Number(v), r, s],
      }),
    }
    expect(await allowanceOf(rpc, dusdt.address, payer.address, PERMIT2_ADDRESS)).to.equal(0n)
    await mined(rpc, permit)
    expect(await allowanceOf(rpc, dusdt.address, payer.address, PERMIT2_ADDRESS)).to.equal(value)
    // The permit's nonce is spent: the same signature again no longer recovers the owner.
    expect(await revertReasonOf(rpc, permit)).to.equal('DemoUsdt: invalid signature')
  })

  it('gives DUSDT no EIP-3009: no transferWithAuthorization in its ABI, authorizationState reverts', async () => {
    const payer = chain.payers[0]!
    const eip3009 = {
      from: chain.facilitator.address,
      to: dusdt.address,
      data: encodeFunctionData({
        abi: eip3009TokenAbi,
        functionName: 'authorizationState',
        args: [payer.address, NONCE],
      }),
    }
    expect(demoUsdtAbi.map((item) => ('name' in item ? item.name : ''))).to.not.include('transferWithAuthorization')
    expect(await revertReasonOf(rpc, eip3009)).to.equal('')
  })
})
