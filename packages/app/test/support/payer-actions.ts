import { eip3009TokenAbi } from '@x402-facilitator/adapters-chain'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { encodeFunctionData, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'
import type { TestFacilitator } from './test-facilitator.js'

/** A tip far above the facilitator's: in a block mined by hand, such a transaction comes before ours. */
const FIRST_IN_BLOCK = { maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0xba43b7400' }

const cancelAuthorizationAbi = [
  {
    type: 'function',
    name: 'cancelAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
] as const

/** Sends `tx` as `from` (impersonated, given ether for gas) without waiting for it to be mined; answers its hash. */
export const sendAs = async (
  f: TestFacilitator,
  from: Address,
  tx: { to: Address; data?: Hex; nonce?: bigint },
): Promise<Hex> => {
  await anvilRpc(f.chain.rpcUrl, 'anvil_setBalance', [from, '0x56BC75E2D63100000'])
  await anvilRpc(f.chain.rpcUrl, 'anvil_impersonateAccount', [from])
  try {
    const { nonce, ...rest } = tx
    return (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [
      {
        from,
        gas: '0x7a120',
        value: '0x0',
        ...rest,
        ...FIRST_IN_BLOCK,
        ...(nonce === undefined ? {} : { nonce: `0x${nonce.toString(16)}` }),
      },
    ])) as Hex
  } finally {
    await anvilRpc(f.chain.rpcUrl, 'anvil_stopImpersonatingAccount', [from])
  }
}

/** EIP-3009 `cancelAuthorization` signed by payer `index`, sent (not waited for) by another account. */
export const cancelAuthorization = async (f: TestFacilitator, index: number, nonce: Hex): Promise<Hex> => {
  const payer = privateKeyToAccount(f.chain.payers[index]!.privateKey)
  const signature = await payer.signTypedData({
    domain: {
      name: f.domain.name,
      version: f.domain.version,
      chainId: f.domain.chainId,
      verifyingContract: f.domain.verifyingContract,
    },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: payer.address, nonce },
  })
  const { v, r, s } = parseSignature(signature)
  const data = encodeFunctionData({
    abi: cancelAuthorizationAbi,
    functionName: 'cancelAuthorization',
    args: [payer.address, nonce, Number(v), r, s],
  })
  const [sender] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as Address[]
  return sendAs(f, sender!, { to: f.asset, data })
}

/** Payer `index` moves its whole token balance away (not waited for): a transfer of its ahead of ours reverts ours. */
export const drainPayer = async (f: TestFacilitator, index: number, to: Address): Promise<Hex> => {
  const payer = f.chain.payers[index]!.address
  const data = encodeFunctionData({
    abi: eip3009TokenAbi,
    functionName: 'transfer',
    args: [to, await f.balanceOf(payer)],
  })
  return sendAs(f, payer, { to: f.asset, data })
}
