import type { PaymentPayload } from '@x402/core/types'
import { PERMIT2_ADDRESS, permit2WitnessTypes, uptoPermit2WitnessTypes } from '@x402/evm'
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { encodeFunctionData, getAddress, maxUint256, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilRpc } from './chain-control.js'
import { waitFor } from './wait-for.js'

interface Permit2Authorization {
  readonly from: Address
  readonly permitted: { readonly token: Address; readonly amount: string }
  readonly spender: Address
  readonly nonce: string
  readonly deadline: string
  readonly witness: { readonly to: Address; readonly validAfter: string; readonly facilitator?: Address }
}

/** The Permit2 nonce of an official client's Permit2 payload (`exact` or `upto`). */
export const permit2NonceOf = (payload: PaymentPayload): bigint =>
  BigInt((payload.payload as { permit2Authorization: Permit2Authorization }).permit2Authorization.nonce)

/**
 * The official client's Permit2 payload (`exact` or `upto`) made again with another `token` and/or `nonce` (the client
 * draws its nonce itself): the same authorization otherwise, signed as @x402/evm 2.27 signs it.
 */
export const resignedPermit2 = async (
  payload: PaymentPayload,
  change: { readonly token?: Address; readonly nonce?: bigint },
  payerKey: Hex,
  chainId: number,
): Promise<PaymentPayload> => {
  const signed = (payload.payload as { permit2Authorization: Permit2Authorization }).permit2Authorization
  const authorization: Permit2Authorization = {
    ...signed,
    permitted: { ...signed.permitted, token: getAddress(change.token ?? signed.permitted.token) },
    nonce: (change.nonce ?? BigInt(signed.nonce)).toString(),
  }
  const { to, validAfter, facilitator } = authorization.witness
  const message = {
    permitted: { token: authorization.permitted.token, amount: BigInt(authorization.permitted.amount) },
    spender: getAddress(authorization.spender),
    nonce: BigInt(authorization.nonce),
    deadline: BigInt(authorization.deadline),
  }
  const domain = { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS } as const
  const account = privateKeyToAccount(payerKey)
  const signature =
    facilitator === undefined
      ? await account.signTypedData({
          domain,
          types: permit2WitnessTypes,
          primaryType: 'PermitWitnessTransferFrom',
          message: { ...message, witness: { to: getAddress(to), validAfter: BigInt(validAfter) } },
        })
      : await account.signTypedData({
          domain,
          types: uptoPermit2WitnessTypes,
          primaryType: 'PermitWitnessTransferFrom',
          message: {
            ...message,
            witness: { to: getAddress(to), facilitator: getAddress(facilitator), validAfter: BigInt(validAfter) },
          },
        })
  return { ...payload, payload: { signature, permit2Authorization: authorization } }
}

/** A transaction `owner` sends (anvil impersonates it), mined; throws when it reverted. */
const sendAs = async (rpcUrl: string, owner: Address, tx: { to: Address; data: Hex }): Promise<void> => {
  await anvilRpc(rpcUrl, 'anvil_impersonateAccount', [owner])
  const hash = await anvilRpc(rpcUrl, 'eth_sendTransaction', [{ from: owner, ...tx }])
  await anvilRpc(rpcUrl, 'anvil_stopImpersonatingAccount', [owner])
  const receipt = await waitFor(
    "the payer's transaction mined",
    async () =>
      ((await anvilRpc(rpcUrl, 'eth_getTransactionReceipt', [hash])) as { status: string } | null) ?? undefined,
  )
  if (receipt.status !== '0x1') throw new Error(`the transaction of ${owner} to ${tx.to} reverted`)
}

/** `owner` approves Permit2 for every unit of `token`. */
export const approvePermit2 = (rpcUrl: string, token: Address, owner: Address): Promise<void> =>
  sendAs(rpcUrl, owner, {
    to: token,
    data: encodeFunctionData({
      abi: parseAbi(['function approve(address,uint256) returns (bool)']),
      functionName: 'approve',
      args: [PERMIT2_ADDRESS, maxUint256],
    }),
  })

/** `owner` cancels its Permit2 `nonce` (Permit2's `invalidateUnorderedNonces`: the nonce's bit in its word). */
export const cancelPermit2Nonce = (rpcUrl: string, owner: Address, nonce: bigint): Promise<void> =>
  sendAs(rpcUrl, owner, {
    to: PERMIT2_ADDRESS,
    data: encodeFunctionData({
      abi: parseAbi(['function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)']),
      functionName: 'invalidateUnorderedNonces',
      args: [nonce >> 8n, 1n << (nonce & 0xffn)],
    }),
  })
