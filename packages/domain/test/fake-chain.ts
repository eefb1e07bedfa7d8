// The domain's chain fakes, for a composition over them (packages/app/test/fake-composition.test.ts): both pass the
// chain contract suite the real adapter passes (test/contract/fake-chain.contract.test.ts).
export { FakeSubmitter } from './fake-submitter.js'
export { FakeToken } from './fake-token.js'
export { BLOCK_42, TOKEN as FAKE_TOKEN } from './sample-values.js'
