/** A `0x`-prefixed hex string. EVM addresses and hashes are always lower-case here. */
export type Hex = `0x${string}`
/** `0x` + 40 lower-case hex digits. */
export type EvmAddress = Hex
/** `0x` + 64 lower-case hex digits. */
export type Bytes32 = Hex

/** Tokens sent here are burnt: never a recipient (docs/ARCHITECTURE.md §3 rule 4a). */
export const ZERO_ADDRESS: EvmAddress = `0x${'0'.repeat(40)}`
