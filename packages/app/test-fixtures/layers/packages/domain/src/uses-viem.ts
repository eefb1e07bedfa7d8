// Fixture for the layer check: the domain must not import an adapter's technology.
import { keccak256 } from 'viem'
export const hash = keccak256
