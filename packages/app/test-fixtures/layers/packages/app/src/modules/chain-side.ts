// Fixture for the layer check: the app's chain module may import viem.
import { parseTransaction } from 'viem'
export const parse = parseTransaction
