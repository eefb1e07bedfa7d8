import { demoSmartWalletFactoryAbi, demoSmartWalletFactoryBytecode } from '@x402-facilitator/adapters-chain'
import { type LocalSmartWallet } from '@x402-facilitator/adapters-chain/testing'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeDeployData, encodeFunctionData } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'
import { waitFor } from './wait-for.js'

/** A DemoSmartWallet of `factory` for a fresh owner key, not deployed, holding `units` of the token `mint` mints. */
export const counterfactualWallet = async (
  rpcUrl: string,
  factory: Address,
  mint: (to: Address, units: bigint) => Promise<void>,
  units: bigint,
): Promise<LocalSmartWallet> => {
  const ownerPrivateKey = generatePrivateKey()
  const args = [privateKeyToAddress(ownerPrivateKey), 1n] as const
  const call = {
    to: factory,
    data: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'getAddress', args }),
  }
  const answer = (await anvilRpc(rpcUrl, 'eth_call', [call, 'latest'])) as Hex
  const address = decodeFunctionResult({
    abi: demoSmartWalletFactoryAbi,
    functionName: 'getAddress',
    data: answer,
  }).toLowerCase() as Address
  await mint(address, units)
  return {
    address,
    ownerPrivateKey,
    factory,
    factoryCalldata: encodeFunctionData({ abi: demoSmartWalletFactoryAbi, functionName: 'createAccount', args }),
  }
}

/** Another DemoSmartWalletFactory, deployed from anvil's first account: the same code as the demo one, at its own address. */
export const deployAnotherWalletFactory = async (rpcUrl: string): Promise<Address> => {
  const [owner] = (await anvilRpc(rpcUrl, 'eth_accounts')) as Address[]
  const hash = await anvilRpc(rpcUrl, 'eth_sendTransaction', [
    {
      from: owner,
      data: encodeDeployData({ abi: demoSmartWalletFactoryAbi, bytecode: demoSmartWalletFactoryBytecode }),
    },
  ])
  const receipt = await waitFor(
    'the factory deployed',
    async () =>
      ((await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [hash])) as { contractAddress: Address } | null) ??
      undefined,
  )
  return receipt.contractAddress.toLowerCase() as Address
}
