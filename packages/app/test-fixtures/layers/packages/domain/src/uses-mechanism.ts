// Fixture for the layer check: a file of the domain's core importing a payment mechanism (not allowed).
import { mechanism } from './evm/mechanism.js'
export const core = mechanism
