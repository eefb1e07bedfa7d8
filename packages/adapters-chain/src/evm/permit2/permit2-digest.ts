import type {
  EvmAddress as Address,
  ChainUnavailable,
  Hex,
  Permit2Authorization,
  SignatureCheck,
} from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { hashTypedData, hexToBytes } from 'viem'
import type { Erc1271Check } from '../wallets/erc1271-check.js'
import { parseSignature, recoverAddress } from '../signing/secp256k1-signature.js'

const TOKEN_PERMISSIONS = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint256' },
] as const

const permitWitnessTransferFrom = (witness: readonly { name: string; type: string }[]) => ({
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: TOKEN_PERMISSIONS,
  Witness: witness,
})

/**
 * The witness types of the x402 proxies (test-fixtures/x402-permit2-proxies: x402ExactPermit2Proxy.sol
 * `Witness(address to,uint256 validAfter)`, x402UptoPermit2Proxy.sol `Witness(address to,address facilitator,uint256
 * validAfter)`): the proxy builds the digest Permit2 checks with exactly these.
 */
const EXACT_TYPES = permitWitnessTransferFrom([
  { name: 'to', type: 'address' },
  { name: 'validAfter', type: 'uint256' },
])
const UPTO_TYPES = permitWitnessTransferFrom([
  { name: 'to', type: 'address' },
  { name: 'facilitator', type: 'address' },
  { name: 'validAfter', type: 'uint256' },
])

/** Where the digest is checked: Permit2 on a chain (its EIP-712 domain has no version). */
export interface Permit2Domain {
  readonly chainId: bigint
  readonly permit2: Address
}

/**
 * The EIP-712 digest Permit2's `permitWitnessTransferFrom` verifies for a payment of `scheme` (rule P7,
 * docs/ARCHITECTURE.md §3): an `upto` witness carries the facilitator, an `exact` one does not.
 */
export const permit2Digest = (
  scheme: 'exact' | 'upto',
  a: Permit2Authorization,
  { chainId, permit2 }: Permit2Domain,
): Uint8Array => {
  const common = { permitted: a.permitted, spender: a.spender, nonce: BigInt(a.nonce), deadline: a.deadline }
  const domain = { name: 'Permit2', chainId, verifyingContract: permit2 }
  const { to, validAfter } = a.witness
  const hash =
    scheme === 'upto'
      ? hashTypedData({
          domain,
          types: UPTO_TYPES,
          primaryType: 'PermitWitnessTransferFrom',
          message: {
            ...common,
            witness: { to, facilitator: a.witness.facilitator ?? `0x${'0'.repeat(40)}`, validAfter },
          },
        })
      : hashTypedData({
          domain,
          types: EXACT_TYPES,
          primaryType: 'PermitWitnessTransferFrom',
          message: { ...common, witness: { to, validAfter } },
        })
  return hexToBytes(hash)
}

/**
 * Rule P7 for a payer without code: the signature (65 bytes, low s, as rule 7) recovers the digest to `from`.
 * Permit2 itself would also take a high-s or 64-byte signature; refusing them is stricter, never looser.
 */
export const verifyPermit2SignatureByKey = (
  scheme: 'exact' | 'upto',
  authorization: Permit2Authorization,
  signature: string,
  domain: Permit2Domain,
): SignatureCheck => {
  const parts = parseSignature(signature)
  if (typeof parts === 'string') return { _tag: 'SignatureInvalid', detail: parts }
  const signer = recoverAddress(permit2Digest(scheme, authorization, domain), parts.compact, parts.recoveryId)
  if (signer === undefined) return { _tag: 'SignatureInvalid', detail: 'signature does not recover to any key' }
  return signer === authorization.from.toLowerCase()
    ? { _tag: 'SignatureValid', byKey: true }
    : { _tag: 'SignatureInvalid', detail: `signature recovers to ${signer}, not to the payer ${authorization.from}` }
}

/**
 * Rule P7: by key (above); a signature that does not recover to `from` is put to `from` itself (ERC-1271), as rule 7
 * does: Permit2 asks `isValidSignature` of an owner with code. ERC-6492 (a wallet not deployed yet) is not taken:
 * Permit2 cannot deploy it, so its settle would need a factory call first (not built).
 */
export const verifyPermit2Signature = (
  scheme: 'exact' | 'upto',
  authorization: Permit2Authorization,
  signature: Hex,
  domain: Permit2Domain,
  erc1271: Erc1271Check,
): TE.TaskEither<ChainUnavailable, SignatureCheck> => {
  const check = verifyPermit2SignatureByKey(scheme, authorization, signature, domain)
  if (check._tag === 'SignatureValid') return TE.right(check)
  const digest = permit2Digest(scheme, authorization, domain)
  return TE.map((accepted: boolean): SignatureCheck => (accepted ? { _tag: 'SignatureValid' } : check))(
    erc1271(authorization.from, digest, signature),
  )
}
