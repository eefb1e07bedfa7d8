// Fixture for the layer check: a file of the app outside modules/ reaching for viem (not allowed).
import { parseTransaction } from 'viem'
export const parse = parseTransaction
