import {
  CanonicalAddress,
  CanonicalBytes32,
  HexBytes,
  type EvmAddress as Address,
  type Hex,
} from '@x402-facilitator/domain'
import { encodeDeployData, hashDomain, type Abi } from 'viem'
import { permit2Abi, permit2Bytecode, permit2Immutables } from '../../test-fixtures/generated/permit2.js'
import {
  x402ExactPermit2ProxyAbi,
  x402ExactPermit2ProxyBytecode,
  x402UptoPermit2ProxyAbi,
  x402UptoPermit2ProxyBytecode,
} from '../../test-fixtures/generated/x402-permit2-proxies.js'
import { makeChainRpc, type ChainRpc } from '../evm/rpc/chain-rpc.js'
import { decodeAnswer, fieldOf, readQuantity } from '../evm/rpc/rpc-failure.js'

/** Uniswap's Permit2, at the same address on every chain (a CREATE2 deployment). */
export const PERMIT2_ADDRESS: Address = '0x000000000022d473030f116ddee9f6b43ac78ba3'
/** Where `@x402/evm` 2.27 (`x402ExactPermit2ProxyAddress`, `x402UptoPermit2ProxyAddress`) sends Permit2 payments. */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: Address = '0x402085c248eea27d92e8b30b2c58ed07f9e20001'
export const X402_UPTO_PERMIT2_PROXY_ADDRESS: Address = '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002'

/**
 * OpenZeppelin 5.5's ReentrancyGuard keeps its flag in this ERC-7201 slot, and its constructor sets it to 1
 * (NOT_ENTERED): runtime code moved by `anvil_setCode` would leave it 0, so it is copied with the code.
 */
const REENTRANCY_GUARD_SLOT: Hex = '0x9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00'

export interface Permit2Suite {
  readonly permit2: Address
  readonly exactProxy: Address
  readonly uptoProxy: Address
  readonly chainId: bigint
}

/** Byte ranges of the runtime code that a constructor filled with one immutable. */
type ImmutableRanges = readonly { readonly start: number; readonly length: number }[]

const withImmutable = (code: Hex, ranges: ImmutableRanges, value: Hex): Hex =>
  ranges.reduce<Hex>((patched, { start, length }) => {
    const at = 2 + 2 * start
    return `0x${patched.slice(2, at)}${value.slice(2).padStart(2 * length, '0')}${patched.slice(at + 2 * length)}`
  }, code)

/**
 * Deploys Permit2 and x402's exact and upto Permit2 proxies (test-fixtures/permit2, test-fixtures/x402-permit2-proxies,
 * see their SOURCE.md) at the addresses the official clients sign for. Each is deployed with CREATE by anvil's first
 * unlocked account, so the constructor runs on this chain; its runtime code is then put at the canonical address with
 * `anvil_setCode`. Immutables are baked into runtime code: Permit2's cached chain id is this chain's already, but its
 * cached domain separator names the copy's address, so it is rewritten for the canonical one (what a CREATE2
 * deployment there holds). The proxies' immutable PERMIT2 is the canonical Permit2, their constructor argument as
 * upstream's Deploy.s.sol; their one storage word (the reentrancy flag) is copied. Idempotent.
 */
export const deployPermit2Suite = async (rpcOrUrl: ChainRpc | string): Promise<Permit2Suite> => {
  const rpc = typeof rpcOrUrl === 'string' ? makeChainRpc({ rpcUrl: rpcOrUrl }) : rpcOrUrl
  try {
    const chainId = await readQuantity(rpc, 'eth_chainId')
    const accounts = await rpc.read('eth_accounts')
    const deployer = decodeAnswer(CanonicalAddress, "anvil's first account", Array.isArray(accounts) ? accounts[0] : '')

    const deployCopy = async (what: string, data: Hex): Promise<Address> => {
      const hash = decodeAnswer(
        CanonicalBytes32,
        `the hash of ${what}`,
        await rpc.write('eth_sendTransaction', [{ from: deployer, data }]),
      )
      // Anvil mines each transaction as it comes; bounded, so a stuck node fails the set-up instead of hanging it.
      for (let attempt = 0; attempt < 1_000; attempt++) {
        const receipt = await rpc.read('eth_getTransactionReceipt', [hash])
        if (receipt !== null) {
          if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`Permit2 suite set-up: ${what} reverted`)
          return decodeAnswer(CanonicalAddress, `the address of ${what}`, fieldOf(receipt, 'contractAddress'))
        }
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      throw new Error(`Permit2 suite set-up: ${what} was not mined`)
    }
    const runtimeCodeOf = async (address: Address): Promise<Hex> =>
      decodeAnswer(HexBytes, `the code at ${address}`, await rpc.read('eth_getCode', [address, 'latest']))
    const place = async (
      what: string,
      at: Address,
      deployment: { abi: Abi; bytecode: Hex; args?: readonly unknown[] },
      patch: (code: Hex) => Hex = (code) => code,
      slots: readonly Hex[] = [],
    ): Promise<void> => {
      const copy = await deployCopy(what, encodeDeployData(deployment as Parameters<typeof encodeDeployData>[0]))
      await rpc.read('anvil_setCode', [at, patch(await runtimeCodeOf(copy))])
      for (const slot of slots)
        await rpc.read('anvil_setStorageAt', [at, slot, await rpc.read('eth_getStorageAt', [copy, slot, 'latest'])])
    }

    const permit2Domain = hashDomain({
      domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    })
    await place('Permit2', PERMIT2_ADDRESS, { abi: permit2Abi, bytecode: permit2Bytecode }, (code) =>
      withImmutable(code, permit2Immutables._CACHED_DOMAIN_SEPARATOR, permit2Domain),
    )
    const proxy = { args: [PERMIT2_ADDRESS] } as const
    await place(
      'x402ExactPermit2Proxy',
      X402_EXACT_PERMIT2_PROXY_ADDRESS,
      { abi: x402ExactPermit2ProxyAbi, bytecode: x402ExactPermit2ProxyBytecode, ...proxy },
      undefined,
      [REENTRANCY_GUARD_SLOT],
    )
    await place(
      'x402UptoPermit2Proxy',
      X402_UPTO_PERMIT2_PROXY_ADDRESS,
      { abi: x402UptoPermit2ProxyAbi, bytecode: x402UptoPermit2ProxyBytecode, ...proxy },
      undefined,
      [REENTRANCY_GUARD_SLOT],
    )
    return {
      permit2: PERMIT2_ADDRESS,
      exactProxy: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      uptoProxy: X402_UPTO_PERMIT2_PROXY_ADDRESS,
      chainId,
    }
  } finally {
    if (typeof rpcOrUrl === 'string') rpc.close()
  }
}
