import {
  HexBytes,
  type EvmAddress as Address,
  type Authorization,
  type Hex,
  type SponsoredPermitTerms,
} from '@x402-facilitator/domain'
import type { PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import {
  decodeFunctionResult,
  encodeFunctionData,
  maxUint256,
  numberToHex,
  parseAbi,
  parseEventLogs,
  toFunctionSelector,
  type Log,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainRpc } from '../src/evm/rpc/chain-rpc.js'
import type { LocalAccount } from '../src/testing/local-chain.js'
import { decodeAnswer, fieldOf } from '../src/evm/rpc/rpc-failure.js'
import {
  DEMO_USDT_EIP712_VERSION,
  DEMO_USDT_NAME,
  permit2Abi,
  x402ExactPermit2ProxyAbi,
  x402UptoPermit2ProxyAbi,
  type Permit2Suite,
} from '../src/testing/index.js'
import { mined, type Call } from './demo-token-calls.js'

/** The Permit2 authorization `@x402/evm` puts in a payload: every number a decimal string, as on the wire. */
export interface Permit2Authorization {
  readonly from: Address
  readonly permitted: { readonly token: Address; readonly amount: string }
  readonly spender: Address
  readonly nonce: string
  readonly deadline: string
  readonly witness: { readonly to: Address; readonly facilitator?: Address; readonly validAfter: string }
}

export interface SignedPermit2 {
  readonly signature: Hex
  readonly permit2Authorization: Permit2Authorization
}

export interface Permit2Payment {
  readonly token: Address
  readonly amount: bigint
  readonly payTo: Address
  /** For `upto`: who alone may settle (the witness's `facilitator`, `extra.facilitatorAddress` in the requirements). */
  readonly facilitator?: Address
}

/**
 * A Permit2 payment made by the official client itself: `@x402/evm` 2.27's `ExactEvmScheme` with
 * `extra.assetTransferMethod: "permit2"` (signed for the exact proxy), or its `UptoEvmScheme` (the upto proxy).
 */
export const officialPermit2Payload = async (
  scheme: 'exact' | 'upto',
  payer: LocalAccount,
  chainId: bigint,
  payment: Permit2Payment,
): Promise<SignedPermit2> => {
  const signer = toClientEvmSigner(privateKeyToAccount(payer.privateKey))
  const requirements: PaymentRequirements = {
    scheme,
    network: `eip155:${chainId}`,
    asset: payment.token,
    amount: String(payment.amount),
    payTo: payment.payTo,
    maxTimeoutSeconds: 600,
    extra:
      scheme === 'exact'
        ? { assetTransferMethod: 'permit2' }
        : { assetTransferMethod: 'permit2', facilitatorAddress: payment.facilitator },
  }
  const client = scheme === 'exact' ? new ExactEvmScheme(signer) : new UptoEvmScheme(signer)
  const { payload } = await client.createPaymentPayload(2, requirements)
  return payload as unknown as SignedPermit2
}

const permitOf = (a: Permit2Authorization) => ({
  permitted: { token: a.permitted.token, amount: BigInt(a.permitted.amount) },
  nonce: BigInt(a.nonce),
  deadline: BigInt(a.deadline),
})

/** `x402ExactPermit2Proxy.settle(permit, owner, witness, signature)` from `from`. */
export const exactSettleCall = (suite: Permit2Suite, from: Address, signed: SignedPermit2): Call => {
  const a = signed.permit2Authorization
  return {
    from,
    to: suite.exactProxy,
    data: encodeFunctionData({
      abi: x402ExactPermit2ProxyAbi,
      functionName: 'settle',
      args: [permitOf(a), a.from, { to: a.witness.to, validAfter: BigInt(a.witness.validAfter) }, signed.signature],
    }),
  }
}

/** `x402UptoPermit2ProxyAbi.settle(permit, amount, owner, witness, signature)` from `from`. */
export const uptoSettleCall = (suite: Permit2Suite, from: Address, signed: SignedPermit2, amount: bigint): Call => {
  const a = signed.permit2Authorization
  const witness = {
    to: a.witness.to,
    facilitator: a.witness.facilitator ?? '0x0000000000000000000000000000000000000000',
    validAfter: BigInt(a.witness.validAfter),
  }
  return {
    from,
    to: suite.uptoProxy,
    data: encodeFunctionData({
      abi: x402UptoPermit2ProxyAbi,
      functionName: 'settle',
      args: [permitOf(a), amount, a.from, witness, signed.signature],
    }),
  }
}

const ERC20 = parseAbi([
  'function approve(address spender, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
])

/** The payer approves Permit2 for every unit of `token`, by transaction (the client's `createPermit2ApprovalTx`). */
export const approvePermit2 = async (rpc: ChainRpc, suite: Permit2Suite, token: Address, owner: Address) =>
  mined(rpc, {
    from: owner,
    to: token,
    data: encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [suite.permit2, maxUint256] }),
  })

const view = async (rpc: ChainRpc, to: Address, data: Hex): Promise<Hex> =>
  decodeAnswer(HexBytes, 'an eth_call result', await rpc.read('eth_call', [{ to, data }, 'latest']))

export const balanceOf = async (rpc: ChainRpc, token: Address, owner: Address): Promise<bigint> =>
  decodeFunctionResult({
    abi: ERC20,
    functionName: 'balanceOf',
    data: await view(rpc, token, encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [owner] })),
  })

export const allowanceOf = async (rpc: ChainRpc, token: Address, owner: Address, spender: Address): Promise<bigint> =>
  decodeFunctionResult({
    abi: ERC20,
    functionName: 'allowance',
    data: await view(rpc, token, encodeFunctionData({ abi: ERC20, functionName: 'allowance', args: [owner, spender] })),
  })

/** Whether Permit2 has marked `nonce` of `owner` used: bit `nonce & 0xff` of word `nonce >> 8` of its nonceBitmap. */
export const permit2NonceUsed = async (
  rpc: ChainRpc,
  suite: Permit2Suite,
  owner: Address,
  nonce: bigint,
): Promise<boolean> => {
  const data = encodeFunctionData({ abi: permit2Abi, functionName: 'nonceBitmap', args: [owner, nonce >> 8n] })
  const word = decodeFunctionResult({
    abi: permit2Abi,
    functionName: 'nonceBitmap',
    data: await view(rpc, suite.permit2, data),
  })
  return ((word >> (nonce & 0xffn)) & 1n) === 1n
}

/** What anvil answers for a revert with a custom error and no arguments: "custom error <selector>". */
export const customError = (signature: string): string => `custom error ${toFunctionSelector(signature)}`

const TRANSFER = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)'])

/** The token's Transfer events in a receipt. */
export const transfersIn = (receipt: unknown, token: Address) =>
  parseEventLogs({ abi: TRANSFER, logs: fieldOf(receipt, 'logs') as Log[] })
    .filter((log) => log.address.toLowerCase() === token)
    .map(({ args }) => ({ from: args.from.toLowerCase(), to: args.to.toLowerCase(), value: args.value }))

/**
 * The domain's reading of a signed Permit2 payment (docs/ARCHITECTURE.md §3): `value` is what the transaction moves
 * (exact: the permitted amount; upto: `amount`, at most it), `validBefore` the deadline, the nonce as bytes32.
 */
export const permit2AuthorizationOf = (
  scheme: 'exact' | 'upto',
  signed: SignedPermit2,
  amount?: bigint,
  sponsoredPermit?: SponsoredPermitTerms,
): Authorization => {
  const a = signed.permit2Authorization
  const permitted = BigInt(a.permitted.amount)
  return {
    from: a.from.toLowerCase() as Address,
    to: a.witness.to.toLowerCase() as Address,
    value: amount ?? permitted,
    validAfter: BigInt(a.witness.validAfter),
    validBefore: BigInt(a.deadline),
    nonce: numberToHex(BigInt(a.nonce), { size: 32 }),
    permit2: {
      scheme,
      permitted,
      spender: a.spender.toLowerCase() as Address,
      ...(a.witness.facilitator === undefined ? {} : { facilitator: a.witness.facilitator.toLowerCase() as Address }),
      ...(sponsoredPermit === undefined ? {} : { sponsoredPermit }),
    },
  }
}

/** An EIP-2612 `Permit` of DemoUsdt at `token` signed by `payer` (what `eip2612GasSponsoring` carries). */
export const signDemoUsdtPermit = (
  payer: LocalAccount,
  chainId: bigint,
  token: Address,
  message: { readonly spender: Address; readonly value: bigint; readonly nonce: bigint; readonly deadline: bigint },
): Promise<Hex> =>
  privateKeyToAccount(payer.privateKey).signTypedData({
    domain: { name: DEMO_USDT_NAME, version: DEMO_USDT_EIP712_VERSION, chainId, verifyingContract: token },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: payer.address, ...message },
  })
