/** `@x402-facilitator/domain/journal-contract`: the journal contract suite and its samples, for the adapters' tests. */
export { settlementJournalContract, type JournalContractOptions } from './settlement-journal-contract.js'
export type { JournalUnderTest } from './journal-under-test.js'
export * from './journal-samples.js'
export { SVM_SAMPLE_NETWORK, svmSettlement } from './svm-rows-contract.js'
