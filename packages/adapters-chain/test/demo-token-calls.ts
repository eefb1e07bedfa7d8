import {
  CanonicalAddress,
  CanonicalBytes32,
  HexBytes,
  type EvmAddress as Address,
  type Authorization,
  type Eip712Domain,
  type Hex,
} from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeDeployData, encodeFunctionData, numberToHex, type Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import { demoSmartWalletAbi, demoSmartWalletBytecode } from '../src/generated/demo-smart-wallet.js'
import { demoUsdAbi } from '../src/generated/demo-usd.js'
import type { LocalAccount, LocalChain } from '../src/testing/local-chain.js'
import { classifyRpcError, decodeAnswer, fieldOf } from '../src/evm/rpc/rpc-failure.js'
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../src/evm/signing/sign-transfer-authorization.js'
import { eventually } from './fixtures.js'

/**
 * What the tests of the demo token send: a call of the token (or a deployment) from any address, anvil impersonating
 * it.
 */
export interface Call {
  readonly from: Address
  readonly to?: Address
  readonly data: Hex
}

// Widened to any ABI: the tests pick overloads by their arguments, which the `as const` ABI's types cannot follow.
const TOKEN_ABI: Abi = demoUsdAbi

/** A call of the token's `functionName` from `from`, encoded by viem from the generated ABI. */
export const tokenCall = (
  token: Address,
  from: Address,
  functionName: string,
  args: ReadonlyArray<unknown> = [],
): Call => ({
  from,
  to: token,
  data: encodeFunctionData({ abi: TOKEN_ABI, functionName, args }),
})

/** Sends the call as `from` and waits for it to be mined; fails unless it succeeded. Returns the receipt. */
export const mined = async (rpc: ChainRpc, call: Call): Promise<unknown> => {
  await rpc.read('anvil_impersonateAccount', [call.from])
  const hash = decodeAnswer(CanonicalBytes32, 'a transaction hash', await rpc.write('eth_sendTransaction', [call]))
  let receipt: unknown = null
  await eventually(async () => (receipt = await rpc.read('eth_getTransactionReceipt', [hash])) !== null)
  if (fieldOf(receipt, 'status') !== '0x1') throw new Error(`${hash} reverted`)
  return receipt
}

/**
 * Why the token refuses the call: the revert reason of an `eth_call` as `from`; fails the test if the call succeeds.
 */
export const revertReasonOf = async (rpc: ChainRpc, call: Call): Promise<string> => {
  try {
    await rpc.read('eth_call', [call, 'latest'])
  } catch (error) {
    const failure = classifyRpcError(error)
    if (failure.kind !== 'answered') throw error
    return failure.message.replace(/^execution reverted:?\s*/, '')
  }
  throw new Error(`expected ${call.data.slice(0, 10)} from ${call.from} to revert, it succeeded`)
}

/** A fresh EOA holding `units` of the token and a little ETH. */
export const fundedAccount = async (rpc: ChainRpc, chain: LocalChain, units: bigint): Promise<LocalAccount> => {
  const privateKey = generatePrivateKey()
  const address = decodeAnswer(CanonicalAddress, 'an address', privateKeyToAddress(privateKey).toLowerCase())
  await rpc.read('anvil_setBalance', [address, numberToHex(10n ** 18n)])
  await chain.mint(address, units)
  return { address, privateKey }
}

/** A DemoSmartWallet owned by `owner`'s key, deployed by `deployer` and holding `units` of the token. */
export const fundedSmartWallet = async (
  rpc: ChainRpc,
  chain: LocalChain,
  deployer: Address,
  owner: Address,
  units: bigint,
): Promise<Address> => {
  const data = encodeDeployData({ abi: demoSmartWalletAbi, bytecode: demoSmartWalletBytecode, args: [owner] })
  const wallet = decodeAnswer(
    CanonicalAddress,
    'the wallet address',
    fieldOf(await mined(rpc, { from: deployer, data }), 'contractAddress'),
  )
  await chain.mint(wallet, units)
  return wallet
}

/** The arguments of an EIP-3009 call: the authorization's fields, then the signature as the overload takes it. */
export const withVrs = (a: Authorization, signature: Hex): ReadonlyArray<unknown> => [
  a.from,
  a.to,
  a.value,
  a.validAfter,
  a.validBefore,
  a.nonce,
  parseInt(signature.slice(130, 132), 16),
  `0x${signature.slice(2, 66)}`,
  `0x${signature.slice(66, 130)}`,
]

export const withBytes = (a: Authorization, signature: Hex): ReadonlyArray<unknown> => [
  a.from,
  a.to,
  a.value,
  a.validAfter,
  a.validBefore,
  a.nonce,
  signature,
]

/** A view of the token, decoded by viem. */
export const tokenView = async (
  rpc: ChainRpc,
  token: Address,
  functionName: string,
  args: ReadonlyArray<unknown> = [],
): Promise<unknown> => {
  const data = decodeAnswer(
    HexBytes,
    'a call result',
    await rpc.read('eth_call', [
      { to: token, data: encodeFunctionData({ abi: TOKEN_ABI, functionName, args }) },
      'latest',
    ]),
  )
  return decodeFunctionResult({ abi: TOKEN_ABI, functionName, data })
}

const typedDataDomain = (domain: Eip712Domain) => ({
  name: domain.name,
  version: domain.version,
  chainId: domain.chainId,
  verifyingContract: domain.verifyingContract,
})

/** EIP-3009's `ReceiveWithAuthorization` signed by `privateKey` (the fields are `TransferWithAuthorization`'s). */
export const signReceiveAuthorization = (
  privateKey: Hex,
  domain: Eip712Domain,
  authorization: Authorization,
): Promise<Hex> =>
  privateKeyToAccount(privateKey).signTypedData({
    domain: typedDataDomain(domain),
    types: { ReceiveWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization },
    primaryType: 'ReceiveWithAuthorization',
    message: authorization,
  })

/** EIP-3009's `CancelAuthorization` signed by `privateKey`. */
export const signCancelAuthorization = (
  privateKey: Hex,
  domain: Eip712Domain,
  authorizer: Address,
  nonce: Hex,
): Promise<Hex> =>
  privateKeyToAccount(privateKey).signTypedData({
    domain: typedDataDomain(domain),
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer, nonce },
  })

/** Anvil's unlocked accounts: the first deployed the token and owns it. */
export const unlockedAccounts = async (rpc: ChainRpc): Promise<ReadonlyArray<Address>> => {
  const accounts = await rpc.read('eth_accounts')
  if (!Array.isArray(accounts)) throw new Error('eth_accounts answered no list')
  return accounts.map((a: unknown) =>
    decodeAnswer(CanonicalAddress, 'an unlocked account', typeof a === 'string' ? a.toLowerCase() : a),
  )
}

/** The token balance of `account`. */
export const balanceOf = async (rpc: ChainRpc, token: Address, account: Address): Promise<bigint> => {
  const balance = await tokenView(rpc, token, 'balanceOf', [account])
  if (typeof balance !== 'bigint') throw new Error('balanceOf answered no number')
  return balance
}
