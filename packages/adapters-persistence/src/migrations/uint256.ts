/** 2^256 - 1: CHECK constraints keep every stored amount a valid uint256. */
export const UINT256_MAX = ((1n << 256n) - 1n).toString()
