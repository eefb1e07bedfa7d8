import {
  CanonicalAddress,
  CanonicalBytes32,
  HexBytes,
  type EvmAddress as Address,
  type Hex,
} from '@x402-facilitator/domain'
import { encodeDeployData, encodeFunctionData } from 'viem'
import {
  fiatTokenProxyAbi,
  fiatTokenProxyBytecode,
  fiatTokenV2_2Abi,
  fiatTokenV2_2Bytecode,
  fiatTokenV2_2LinkReferences,
  signatureCheckerBytecode,
} from '../../test-fixtures/generated/circle-usdc.js'
import type { ChainRpc } from '../evm/rpc/chain-rpc.js'
import { decodeAnswer, fieldOf } from '../evm/rpc/rpc-failure.js'

/** Anvil's unlocked accounts in the roles Circle's deployment gives separate keys. */
export interface CircleUsdcRoles {
  readonly deployer: Address
  /** Upgrades the proxy; cannot call the token through it (AdminUpgradeabilityProxy's `ifAdmin`). */
  readonly proxyAdmin: Address
  /** Also the lost-and-found of `initializeV2_1`, as Circle's deploy script does. */
  readonly owner: Address
  readonly masterMinter: Address
  readonly pauser: Address
  readonly blacklister: Address
  readonly minter: Address
}

export interface CircleUsdc {
  /** The proxy: the token's address, as mainnet USDC's is. */
  readonly address: Address
  readonly implementation: Address
  readonly roles: CircleUsdcRoles
  /** What payments are signed over: `name()` as initialized, `version()` fixed in FiatTokenV2_1 (no EIP-5267 here). */
  readonly eip712: { readonly name: typeof USDC_NAME; readonly version: typeof USDC_EIP712_VERSION }
  readonly symbol: typeof USDC_SYMBOL
  readonly decimals: typeof USDC_DECIMALS
  /** Mints as the configured minter (amount > 0, within its allowance). */
  readonly mint: (to: Address, value: bigint) => Promise<void>
  readonly blacklist: (account: Address) => Promise<void>
  readonly unBlacklist: (account: Address) => Promise<void>
  readonly pause: () => Promise<void>
  readonly unpause: () => Promise<void>
}

export const USDC_NAME = 'USD Coin'
export const USDC_SYMBOL = 'USDC'
export const USDC_DECIMALS = 6
/** FiatTokenV2_1's `version()` and FiatTokenV2_2's domain separator: a constant, not an initializer argument. */
export const USDC_EIP712_VERSION = '2'

/** What `initialize` gets on the implementation itself, as Circle's DeployImpl.sol does, so nobody can claim it. */
const THROWAWAY: Address = '0x0000000000000000000000000000000000000001'
/** The most the minter may ever mint here. */
const MINTER_ALLOWANCE = 10n ** 30n

/** FiatTokenV2_2's bytecode with SignatureChecker's address written where solc left its placeholders. */
const linkedFiatTokenV2_2 = (signatureChecker: Address): Hex => {
  let linked: string = fiatTokenV2_2Bytecode
  for (const { start, length } of fiatTokenV2_2LinkReferences['contracts/util/SignatureChecker.sol'].SignatureChecker) {
    const at = 2 + 2 * start
    linked = linked.slice(0, at) + signatureChecker.slice(2) + linked.slice(at + 2 * length)
  }
  return decodeAnswer(HexBytes, 'the linked FiatTokenV2_2 bytecode', linked)
}

type TokenCall = Parameters<typeof encodeFunctionData<typeof fiatTokenV2_2Abi>>[0]

/**
 * Deploys Circle's FiatTokenV2_2 behind FiatTokenProxy on anvil as Circle's deploy-fiat-token.s.sol does: the
 * SignatureChecker library, the implementation linked to it (initialized with throwaway values), the proxy,
 * `changeAdmin`, then through the proxy `initialize` ("USD Coin", "USDC", "USD", 6 decimals), `initializeV2`,
 * `initializeV2_1(owner)`, `initializeV2_2([], "USDC")`; then `configureMinter` so `mint` works. The master minter is
 * an account here, not Circle's MasterMinter contract.
 */
export const deployCircleUsdc = async (rpc: ChainRpc): Promise<CircleUsdc> => {
  const accounts = await rpc.read('eth_accounts')
  const account = (i: number): Address =>
    decodeAnswer(CanonicalAddress, `anvil's unlocked account ${i}`, Array.isArray(accounts) ? accounts[i] : undefined)
  const roles: CircleUsdcRoles = {
    deployer: account(0),
    proxyAdmin: account(1),
    owner: account(2),
    masterMinter: account(3),
    pauser: account(4),
    blacklister: account(5),
    minter: account(6),
  }

  /** Sends from an unlocked account; the receipt once mined, or an error naming what reverted. */
  const transact = async (what: string, from: Address, tx: { to?: Address; data: Hex }): Promise<unknown> => {
    const hash = decodeAnswer(
      CanonicalBytes32,
      `the hash of ${what}`,
      await rpc.write('eth_sendTransaction', [{ from, ...tx }]),
    )
    // Anvil mines each transaction as it comes; the poll is bounded so a stuck node fails the set-up, not hangs it.
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const receipt = await rpc.read('eth_getTransactionReceipt', [hash])
      if (receipt !== null) {
        if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`Circle USDC set-up: ${what} reverted`)
        return receipt
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`Circle USDC set-up: ${what} was not mined`)
  }
  const deploy = async (what: string, data: Hex): Promise<Address> =>
    decodeAnswer(
      CanonicalAddress,
      `the address of ${what}`,
      fieldOf(await transact(what, roles.deployer, { data }), 'contractAddress'),
    )
  const callAs = (from: Address, to: Address, call: TokenCall) =>
    transact(String(call.functionName), from, { to, data: encodeFunctionData(call) })

  const signatureChecker = await deploy('SignatureChecker', signatureCheckerBytecode)
  const implementation = await deploy('FiatTokenV2_2', linkedFiatTokenV2_2(signatureChecker))
  const impl = (call: TokenCall) => callAs(roles.deployer, implementation, call)
  await impl({
    abi: fiatTokenV2_2Abi,
    functionName: 'initialize',
    args: ['', '', '', 0, THROWAWAY, THROWAWAY, THROWAWAY, THROWAWAY],
  })
  await impl({ abi: fiatTokenV2_2Abi, functionName: 'initializeV2', args: [''] })
  await impl({ abi: fiatTokenV2_2Abi, functionName: 'initializeV2_1', args: [THROWAWAY] })
  await impl({ abi: fiatTokenV2_2Abi, functionName: 'initializeV2_2', args: [[], ''] })

  const address = await deploy(
    'FiatTokenProxy',
    encodeDeployData({ abi: fiatTokenProxyAbi, bytecode: fiatTokenProxyBytecode, args: [implementation] }),
  )
  await transact('changeAdmin', roles.deployer, {
    to: address,
    data: encodeFunctionData({ abi: fiatTokenProxyAbi, functionName: 'changeAdmin', args: [roles.proxyAdmin] }),
  })
  const token = (from: Address, call: TokenCall) => callAs(from, address, call)
  await token(roles.deployer, {
    abi: fiatTokenV2_2Abi,
    functionName: 'initialize',
    args: [
      USDC_NAME,
      USDC_SYMBOL,
      'USD',
      USDC_DECIMALS,
      roles.masterMinter,
      roles.pauser,
      roles.blacklister,
      roles.owner,
    ],
  })
  await token(roles.deployer, { abi: fiatTokenV2_2Abi, functionName: 'initializeV2', args: [USDC_NAME] })
  await token(roles.deployer, { abi: fiatTokenV2_2Abi, functionName: 'initializeV2_1', args: [roles.owner] })
  await token(roles.deployer, { abi: fiatTokenV2_2Abi, functionName: 'initializeV2_2', args: [[], USDC_SYMBOL] })
  await token(roles.masterMinter, {
    abi: fiatTokenV2_2Abi,
    functionName: 'configureMinter',
    args: [roles.minter, MINTER_ALLOWANCE],
  })

  return {
    address,
    implementation,
    roles,
    eip712: { name: USDC_NAME, version: USDC_EIP712_VERSION },
    symbol: USDC_SYMBOL,
    decimals: USDC_DECIMALS,
    mint: async (to, value) =>
      void (await token(roles.minter, { abi: fiatTokenV2_2Abi, functionName: 'mint', args: [to, value] })),
    blacklist: async (account) =>
      void (await token(roles.blacklister, { abi: fiatTokenV2_2Abi, functionName: 'blacklist', args: [account] })),
    unBlacklist: async (account) =>
      void (await token(roles.blacklister, { abi: fiatTokenV2_2Abi, functionName: 'unBlacklist', args: [account] })),
    pause: async () => void (await token(roles.pauser, { abi: fiatTokenV2_2Abi, functionName: 'pause' })),
    unpause: async () => void (await token(roles.pauser, { abi: fiatTokenV2_2Abi, functionName: 'unpause' })),
  }
}
