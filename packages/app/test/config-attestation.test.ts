import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { helpText, loadConfig } from '../src/config.js'

const KEY = `0x${'ab'.repeat(32)}`
const production = {
  RPC_URL: 'http://127.0.0.1:8545',
  ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
  FACILITATOR_PRIVATE_KEY: KEY,
  ATTESTATION_PRIVATE_KEY: `0x${'a7'.repeat(32)}`,
  API_KEYS: 'k1',
}
const failure = (env: Record<string, string>) => {
  const result = loadConfig(env)
  if (E.isRight(result)) throw new Error('expected a configuration error')
  return result.left
}

describe('configuration: the attestation key of settlement receipts (docs/ARCHITECTURE.md §4)', () => {
  it('a real network needs ATTESTATION_PRIVATE_KEY, never a gas key, and no refusal shows it; dev mode needs none', () => {
    const { ATTESTATION_PRIVATE_KEY: _attestation, ...unattested } = production
    expect(failure(unattested)).to.match(/^configuration: ATTESTATION_PRIVATE_KEY is required when RPC_URL is set/)
    const pool = `0x${'ef'.repeat(32)}`
    for (const [env, setting] of [
      [{ ...production, ATTESTATION_PRIVATE_KEY: KEY.toUpperCase().replace('0X', '0x') }, 'FACILITATOR_PRIVATE_KEY'],
      [{ ...production, FACILITATOR_PRIVATE_KEYS: pool, ATTESTATION_PRIVATE_KEY: pool }, 'FACILITATOR_PRIVATE_KEY'],
    ] as const) {
      const line = failure(env)
      expect(line).to.match(/^configuration: ATTESTATION_PRIVATE_KEY must not be a gas key/)
      expect(line).to.include(setting)
      expect(line).not.to.include(env.ATTESTATION_PRIVATE_KEY.slice(2, 20).toLowerCase())
    }
    expect(failure({ ...production, ATTESTATION_PRIVATE_KEY: '0x12' })).to.equal(
      'configuration: ATTESTATION_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key',
    )
    expect(failure({ ...production, ATTESTATION_RETIRED_ADDRESSES: '0x12' })).to.match(
      /^configuration: ATTESTATION_RETIRED_ADDRESSES must be a comma-separated list of 0x-prefixed 20-byte hex/,
    )
    expect(E.isRight(loadConfig({}))).to.equal(true)
    expect(helpText()).to.include('ATTESTATION_PRIVATE_KEY').and.not.include('a7'.repeat(32))
  })
})
