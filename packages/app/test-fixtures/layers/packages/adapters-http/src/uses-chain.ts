// Fixture for the layer check: an adapter must not import another adapter.
import { chain } from '../../adapters-chain/src/index.js'
export const http = chain
