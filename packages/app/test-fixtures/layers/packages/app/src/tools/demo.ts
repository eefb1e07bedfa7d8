// Fixture for the layer check: a standalone program (the demo) calls the chain adapter itself.
import { chain } from '../../../adapters-chain/src/index.js'
export const program = chain
