// Fixture for the layer check: the domain's list of chain families may import each mechanism.
import { mechanism } from './evm/mechanism.js'
export const families = [mechanism]
