// Fixture for the layer check: the app's chain module may import viem and the chain adapter.
import { parseTransaction } from 'viem'
import { chain } from '../../../../adapters-chain/src/index.js'
export const parse = [parseTransaction, chain]
