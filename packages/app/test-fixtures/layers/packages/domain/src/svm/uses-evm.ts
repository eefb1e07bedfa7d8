// Fixture for the layer check: one payment mechanism importing another (not allowed).
import { mechanism } from '../evm/mechanism.js'
export const svm = mechanism
