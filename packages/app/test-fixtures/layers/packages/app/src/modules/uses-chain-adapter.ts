// Fixture for the layer check: a module other than the chain module calling the chain adapter (not allowed).
import { chain } from '../../../adapters-chain/src/index.js'
export const opened = chain
