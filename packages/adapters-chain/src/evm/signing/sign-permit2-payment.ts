import { randomBytes } from 'node:crypto'
import { CANONICAL_PERMIT2_CONTRACTS, type Hex } from '@x402-facilitator/domain'
import { createPublicClient, erc20Abi, getAddress, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** The requirements a Permit2 payment answers (x402 v2), as a resource server's 402 lists them. */
export interface Permit2PaymentRequirements {
  readonly scheme: 'exact' | 'upto'
  readonly network: string
  readonly amount: string
  readonly asset: string
  readonly payTo: string
  readonly maxTimeoutSeconds: number
  readonly extra: {
    readonly name: string
    readonly version: string
    readonly assetTransferMethod: 'permit2'
    /** `upto` only: the key the witness names, the only one that may settle it. */
    readonly facilitatorAddress?: string
  }
}

export interface SignPermit2PaymentParameters {
  readonly privateKey: Hex
  readonly requirements: Permit2PaymentRequirements
  readonly resource: { readonly url: string }
  /** The 402's extensions: with `eip2612GasSponsoring` the payer signs a permit when its allowance is short. */
  readonly extensions?: Record<string, unknown>
  /** Where the payer reads its Permit2 allowance and EIP-2612 nonce (needed only with `eip2612GasSponsoring`). */
  readonly rpcUrl?: string
  /** Unix seconds [now]; with `nonce` (decimal) they make the payload reproducible (the cross-check test). */
  readonly now?: number
  readonly nonce?: string
}

const TOKEN_PERMISSIONS = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint256' },
] as const
const PERMIT_WITNESS_TRANSFER_FROM = [
  { name: 'permitted', type: 'TokenPermissions' },
  { name: 'spender', type: 'address' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
  { name: 'witness', type: 'Witness' },
] as const
const EIP2612_PERMIT = [
  { name: 'owner', type: 'address' },
  { name: 'spender', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
] as const
const NONCES_ABI = parseAbi(['function nonces(address owner) view returns (uint256)'])

/**
 * The payment payload @x402/evm 2.27's client makes (`x402Client` with `ExactEvmScheme` or `UptoEvmScheme`, from
 * 2.27's src/shared/permit2.ts, upto/client/permit2.ts, shared/extensions/gasSponsoring.ts and exact/client/eip2612.ts),
 * built with viem alone: the official client is a dev dependency, absent from a production install, so the demo and
 * the bench cannot import it at run time. Same fields, same strings, same signatures (the test signs both ways).
 */
export const signPermit2Payment = async (p: SignPermit2PaymentParameters) => {
  const account = privateKeyToAccount(p.privateKey)
  const { requirements: r } = p
  const chainId = Number(r.network.split(':')[1])
  const permit2 = getAddress(CANONICAL_PERMIT2_CONTRACTS.permit2)
  const upto = r.scheme === 'upto'
  if (upto && r.extra.facilitatorAddress === undefined) throw new Error('upto requires extra.facilitatorAddress')
  const now = p.now ?? Math.floor(Date.now() / 1000)
  const token = getAddress(r.asset)
  const witness = upto
    ? { to: getAddress(r.payTo), facilitator: getAddress(r.extra.facilitatorAddress!), validAfter: '0' }
    : { to: getAddress(r.payTo), validAfter: '0' }
  const permit2Authorization = {
    from: account.address,
    permitted: { token, amount: r.amount },
    spender: getAddress(upto ? CANONICAL_PERMIT2_CONTRACTS.uptoProxy : CANONICAL_PERMIT2_CONTRACTS.exactProxy),
    nonce: p.nonce ?? BigInt(`0x${randomBytes(32).toString('hex')}`).toString(),
    deadline: (now + r.maxTimeoutSeconds).toString(),
    witness,
  }
  const witnessType = [
    { name: 'to', type: 'address' },
    ...(upto ? [{ name: 'facilitator', type: 'address' }] : []),
    { name: 'validAfter', type: 'uint256' },
  ]
  const signature = await account.signTypedData({
    domain: { name: 'Permit2', chainId, verifyingContract: permit2 },
    types: {
      PermitWitnessTransferFrom: PERMIT_WITNESS_TRANSFER_FROM,
      TokenPermissions: TOKEN_PERMISSIONS,
      Witness: witnessType,
    },
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token, amount: BigInt(r.amount) },
      spender: permit2Authorization.spender,
      nonce: BigInt(permit2Authorization.nonce),
      deadline: BigInt(permit2Authorization.deadline),
      // The witness type differs by scheme (built above), so viem cannot type this field.
      witness: { ...witness, validAfter: 0n } as never,
    },
  })
  const sponsoring = p.extensions?.eip2612GasSponsoring !== undefined
  const extensions = sponsoring
    ? await sponsoredPermit(p, account, token, chainId, permit2Authorization.deadline)
    : undefined
  return {
    x402Version: 2,
    payload: { signature, permit2Authorization },
    // x402Client merges the client's extensions into the 402's, field by field.
    extensions: extensions === undefined ? p.extensions : mergeExtensions(p.extensions!, extensions),
    resource: p.resource,
    accepted: r,
  }
}

const sponsoredPermit = async (
  p: SignPermit2PaymentParameters,
  account: ReturnType<typeof privateKeyToAccount>,
  token: Hex,
  chainId: number,
  deadline: string,
) => {
  if (p.rpcUrl === undefined) throw new Error('eip2612GasSponsoring needs rpcUrl: the payer reads its allowance')
  const client = createPublicClient({ transport: http(p.rpcUrl) })
  const permit2 = getAddress(CANONICAL_PERMIT2_CONTRACTS.permit2)
  const amount = BigInt(p.requirements.amount)
  const allowance = await client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [account.address, permit2],
  })
  if (allowance >= amount) return undefined
  const nonce = await client.readContract({
    address: token,
    abi: NONCES_ABI,
    functionName: 'nonces',
    args: [account.address],
  })
  const { name, version } = p.requirements.extra
  const signature = await account.signTypedData({
    domain: { name, version, chainId, verifyingContract: token },
    types: { Permit: EIP2612_PERMIT },
    primaryType: 'Permit',
    message: { owner: account.address, spender: permit2, value: amount, nonce, deadline: BigInt(deadline) },
  })
  const info = {
    from: account.address,
    asset: token,
    spender: permit2,
    amount: amount.toString(),
    nonce: nonce.toString(),
    deadline,
    signature,
    version: '1',
  }
  return { eip2612GasSponsoring: { info } }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** @x402/core 2.27's `x402Client.mergeExtensions`: objects merged field by field, anything else the client's. */
const mergeExtensions = (server: Record<string, unknown>, client: Record<string, unknown>): Record<string, unknown> => {
  const merged: Record<string, unknown> = { ...server }
  for (const [key, value] of Object.entries(client))
    merged[key] = isRecord(merged[key]) && isRecord(value) ? mergeExtensions(merged[key], value) : value
  return merged
}
