// Fixture for the layer check: a payment mechanism may import the domain's core.
import { ok } from '../pure.js'
export const mechanism = ok
