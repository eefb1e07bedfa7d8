export type { BatchingSubmitter, ChainUnderTest, SignedPayment } from './chain-under-test.js'
export { sampleNonce } from './chain-under-test.js'
export { transferSubmitterContract } from './transfer-submitter-contract.js'
export { tokenReaderContract } from './token-reader-contract.js'
