import { CanonicalAddress, type EvmAddress as Address, type Hex } from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeDeployData, encodeFunctionData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import type { ChainRpc } from '../evm/rpc/chain-rpc.js'
import { demoSmartWalletFactoryAbi, demoSmartWalletFactoryBytecode } from '../generated/demo-smart-wallet-factory.js'
import { multicall3Bytecode } from '../generated/multicall3.js'
import { isHexString, lowerCase } from '../evm/hex-bytes.js'
import { decodeAnswer, fieldOf } from '../evm/rpc/rpc-failure.js'
import { CANONICAL_MULTICALL3_ADDRESS } from '../evm/token/transfer-call.js'

/** A DemoSmartWallet payer: its address, the key that owns it, and the factory call that deploys it (ERC-6492). */
export interface LocalSmartWallet {
  readonly address: Address
  /** The owner's key: what the wallet accepts as its signature (ERC-1271). */
  readonly ownerPrivateKey: Hex
  readonly factory: Address
  /** `createAccount(owner, salt)`: what an ERC-6492 wrapper of this wallet carries. */
  readonly factoryCalldata: Hex
}

export interface LocalSmartWallets {
  /** Multicall3 at its canonical address (dev mode's ERC-6492 settles go through it). */
  readonly multicall3: Address
  readonly factory: Address
  /** Deployed and funded. */
  readonly deployed: LocalSmartWallet
  /** Funded, not deployed: it pays with an ERC-6492 signature, its factory deploying it in the settle. */
  readonly counterfactual: LocalSmartWallet
}

type Send = (tx: { to?: Address; data: Hex }) => Promise<unknown>

/**
 * Dev mode's smart-wallet payers: Multicall3's runtime code put at its canonical address (a copy deployed, its code
 * moved there with `anvil_setCode`, as on any real chain it already is), the demo wallet factory, and two wallets
 * holding `units` each: one deployed, one only counterfactual.
 */
export const setUpLocalSmartWallets = async (
  rpc: ChainRpc,
  send: Send,
  mint: (to: Address, value: bigint) => Promise<void>,
  units: bigint,
): Promise<LocalSmartWallets> => {
  const deploy = async (data: Hex, what: string): Promise<Address> =>
    decodeAnswer(
      CanonicalAddress,
      `the address of ${what}`,
      lowerCase(fieldOf(await send({ data }), 'contractAddress') as Address),
    )
  const present = await rpc.read('eth_getCode', [CANONICAL_MULTICALL3_ADDRESS, 'latest'])
  if (present === '0x') {
    const copy = await deploy(multicall3Bytecode, 'a Multicall3 copy')
    await rpc.read('anvil_setCode', [CANONICAL_MULTICALL3_ADDRESS, await rpc.read('eth_getCode', [copy, 'latest'])])
  }
  const factory = await deploy(
    encodeDeployData({ abi: demoSmartWalletFactoryAbi, bytecode: demoSmartWalletFactoryBytecode }),
    'the demo wallet factory',
  )

  const wallet = async (): Promise<LocalSmartWallet> => {
    const ownerPrivateKey = generatePrivateKey()
    const args = [privateKeyToAddress(ownerPrivateKey), 0n] as const
    const answer = await rpc.read('eth_call', [
      { to: factory, data: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'getAddress', args }) },
      'latest',
    ])
    if (!isHexString(answer)) throw new Error('the demo wallet factory did not answer getAddress')
    const address = lowerCase(
      decodeFunctionResult({ abi: demoSmartWalletFactoryAbi, functionName: 'getAddress', data: answer }),
    )
    await mint(address, units)
    return {
      address,
      ownerPrivateKey,
      factory,
      factoryCalldata: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'createAccount', args }),
    }
  }
  const deployed = await wallet()
  await send({ to: factory, data: deployed.factoryCalldata })
  return { multicall3: CANONICAL_MULTICALL3_ADDRESS, factory, deployed, counterfactual: await wallet() }
}
