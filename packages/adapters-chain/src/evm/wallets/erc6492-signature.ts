import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'

/** EIP-6492: the 32 bytes that end a wrapped signature (0x6492 sixteen times). */
export const ERC6492_MAGIC_SUFFIX = '6492'.repeat(16)

/**
 * What an ERC-6492 wrapper carries: the factory to call, its calldata, and the signature the deployed wallet checks.
 */
export interface Erc6492Wrapper {
  readonly factory: Address
  readonly factoryCalldata: Hex
  readonly signature: Hex
}

export type Erc6492Parse =
  | { readonly _tag: 'NotWrapped' }
  | ({ readonly _tag: 'Wrapped' } & Erc6492Wrapper)
  /** Ends with the magic suffix but is not `abi.encode(address, bytes, bytes)` as an ABI encoder writes it. */
  | { readonly _tag: 'MalformedWrapper'; readonly detail: string }

const WORD = 64 // hex characters
const NOT_WRAPPED: Erc6492Parse = { _tag: 'NotWrapped' }
const malformed = (detail: string): Erc6492Parse => ({
  _tag: 'MalformedWrapper',
  detail: `malformed ERC-6492 wrapper: ${detail}`,
})
const paddedWords = (byteLength: number): number => Math.ceil(byteLength / 32)

/**
 * Splits `abi.encode(address factory, bytes factoryCalldata, bytes signature) ++ magic` (EIP-6492). Strict: only the
 * canonical encoding (each offset where the previous part ends, lengths within the body, zero padding, nothing after
 * the last part) is a wrapper; anything else that ends with the magic is malformed — a rule 7 refusal, never a guess.
 */
export const parseErc6492Signature = (signature: Hex): Erc6492Parse => {
  const hex = signature.slice(2).toLowerCase()
  if (hex.length < WORD || !hex.endsWith(ERC6492_MAGIC_SUFFIX)) return NOT_WRAPPED
  const body = hex.slice(0, -WORD)
  if (body.length % WORD !== 0)
    return malformed(`${body.length / 2} bytes before the magic suffix, not whole 32-byte words`)
  if (body.length < 5 * WORD)
    return malformed(
      `${body.length / 2} bytes before the magic suffix, fewer than the 160 of abi.encode(address, bytes, bytes)`,
    )
  const word = (index: number): string => body.slice(index * WORD, (index + 1) * WORD)
  const wordValue = (index: number): number | undefined => {
    const w = word(index)
    // Any length or offset that fits the 8 KiB bound has at most 6 significant hex digits.
    return /^0{56}/.test(w) ? parseInt(w, 16) : undefined
  }
  if (!/^0{24}/.test(word(0))) return malformed('the factory word is not an address (its upper 12 bytes are not zero)')
  const factory: Address = `0x${word(0).slice(24)}`

  /** The `bytes` at head word `head`, expected at word `at`: its value, and the word after its padded tail. */
  const bytesAt = (head: number, at: number, name: string): { value: Hex; next: number } | string => {
    const offset = wordValue(head)
    if (offset !== at * 32)
      return `the offset of ${name} is ${offset === undefined ? 'out of range' : offset}, not ${at * 32}`
    const length = wordValue(at)
    const words = length === undefined ? undefined : paddedWords(length)
    if (length === undefined || words === undefined || (at + 1 + words) * WORD > body.length)
      return `the length of ${name} runs past the end`
    const tail = body.slice((at + 1) * WORD, (at + 1 + words) * WORD)
    if (!/^0*$/.test(tail.slice(length * 2))) return `the padding after ${name} is not zero`
    return { value: `0x${tail.slice(0, length * 2)}`, next: at + 1 + words }
  }
  const calldata = bytesAt(1, 3, 'factoryCalldata')
  if (typeof calldata === 'string') return malformed(calldata)
  const inner = bytesAt(2, calldata.next, 'the inner signature')
  if (typeof inner === 'string') return malformed(inner)
  if (inner.next * WORD !== body.length)
    return malformed(`${(body.length - inner.next * WORD) / 2} bytes after the inner signature`)
  if (inner.value === '0x') return malformed('the inner signature is empty')
  return { _tag: 'Wrapped', factory, factoryCalldata: calldata.value, signature: inner.value }
}

/** Whether `factory` is on the operator's allowlist (`ERC6492_FACTORIES`; lower-case addresses). */
export const isAllowedFactory = (allowed: ReadonlyArray<Address>, factory: Address): boolean =>
  allowed.some((a) => a.toLowerCase() === factory.toLowerCase())
