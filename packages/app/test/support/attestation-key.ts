import type { Hex } from '@x402-facilitator/domain'

/** The attestation key the tests' facilitators sign receipts with (a real network requires one; no gas key). */
export const TEST_ATTESTATION_KEY: Hex = '0x7a3c5e8f1d2b4a6c9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f'
