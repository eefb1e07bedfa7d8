// Fixture for the layer check: a file of the app outside modules/ calling the chain adapter (not allowed).
import { chain } from '../../adapters-chain/src/index.js'
export const opened = chain
