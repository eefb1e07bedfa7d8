import type { EvmAddress as Address, Authorization, Hex, Permit2Transfer } from '@x402-facilitator/domain'
import { decodeFunctionData, encodeFunctionData, hexToBigInt, numberToHex, pad, parseSignature } from 'viem'
import { exactProxyAbi, uptoProxyAbi } from './permit2-abi.js'

// The transaction a Permit2 settle sends (docs/ARCHITECTURE.md §5c): a call of the x402 proxy the payer's permit names.

/** An authorization that pays through Permit2. */
export type Permit2Authorization = Authorization & { readonly permit2: Permit2Transfer }

export const isPermit2 = (a: Authorization): a is Permit2Authorization => a.permit2 !== undefined

/**
 * The proxy call, a pure function of the authorization (a row's: for `upto`, `value` is the amount asked, never the
 * signed maximum) and `token`: exact `settle(permit, owner, witness{to, validAfter}, signature)`, upto
 * `settle(permit, amount, owner, witness{to, facilitator, validAfter}, signature)`, each `settleWithPermit` with the
 * sponsored EIP-2612 permit first when there is one. A replacement or a recovery therefore sends the same amount.
 */
export const permit2CallData = (a: Permit2Authorization, signature: Hex, token: Address): Hex => {
  const { scheme, permitted, sponsoredPermit } = a.permit2
  const permit = { permitted: { token, amount: permitted }, nonce: hexToBigInt(a.nonce), deadline: a.validBefore }
  const permit2612 = sponsoredPermit === undefined ? undefined : splitPermit(sponsoredPermit)
  if (scheme === 'exact') {
    const witness = { to: a.to, validAfter: a.validAfter }
    return permit2612 === undefined
      ? encodeFunctionData({ abi: exactProxyAbi, functionName: 'settle', args: [permit, a.from, witness, signature] })
      : encodeFunctionData({
          abi: exactProxyAbi,
          functionName: 'settleWithPermit',
          args: [permit2612, permit, a.from, witness, signature],
        })
  }
  const witness = { to: a.to, facilitator: a.permit2.facilitator ?? pad('0x', { size: 20 }), validAfter: a.validAfter }
  return permit2612 === undefined
    ? encodeFunctionData({
        abi: uptoProxyAbi,
        functionName: 'settle',
        args: [permit, a.value, a.from, witness, signature],
      })
    : encodeFunctionData({
        abi: uptoProxyAbi,
        functionName: 'settleWithPermit',
        args: [permit2612, permit, a.value, a.from, witness, signature],
      })
}

/** A sponsored EIP-2612 permit as `permit` and the proxy take it: value, deadline and the signature's v, r, s. */
export const splitPermit = (p: NonNullable<Permit2Transfer['sponsoredPermit']>) => {
  const { r, s, v, yParity } = parseSignature(p.signature)
  return { value: p.value, deadline: p.deadline, r, s, v: Number(v ?? BigInt(yParity + 27)) }
}

/** What a proxy call's input says: who paid whom how much, under which nonce. */
export interface DecodedPermit2Call {
  readonly owner: Address
  readonly to: Address
  readonly amount: bigint
  readonly nonce: Hex
  readonly token: Address
}

type PermitArg = { readonly permitted: { readonly token: Address; readonly amount: bigint }; readonly nonce: bigint }

/** A proxy `settle`/`settleWithPermit` call's input decoded (exact's or upto's), undefined for any other input. */
export const decodePermit2Call = (input: Hex): DecodedPermit2Call | undefined => {
  for (const [abi, upto] of [
    [exactProxyAbi, false],
    [uptoProxyAbi, true],
  ] as const) {
    let decoded
    try {
      decoded = decodeFunctionData({ abi, data: input })
    } catch {
      continue
    }
    // settleWithPermit has the EIP-2612 permit first; upto has the amount after the permit.
    const args = (decoded.functionName === 'settleWithPermit' ? decoded.args.slice(1) : decoded.args) as unknown[]
    const permit = args[0] as PermitArg
    const [owner, witness] = args.slice(upto ? 2 : 1) as [Address, { to: Address }]
    return {
      owner: owner.toLowerCase() as Address,
      to: witness.to.toLowerCase() as Address,
      amount: upto ? (args[1] as bigint) : permit.permitted.amount,
      nonce: numberToHex(permit.nonce, { size: 32 }),
      token: permit.permitted.token.toLowerCase() as Address,
    }
  }
  return undefined
}
