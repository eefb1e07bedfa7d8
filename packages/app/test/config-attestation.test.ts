import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { helpText, loadConfig } from '../src/config.js'
import { refusal, GAS_KEY, production } from './support/production-config.js'

describe('configuration: the attestation key of settlement receipts (docs/ARCHITECTURE.md §4)', () => {
  it('a real network needs ATTESTATION_PRIVATE_KEY, never a gas key, and no refusal shows it; dev mode needs none', () => {
    const { ATTESTATION_PRIVATE_KEY: _attestation, ...unattested } = production
    expect(refusal(unattested)).to.match(/^configuration: ATTESTATION_PRIVATE_KEY is required when RPC_URL is set/)
    const pool = `0x${'ef'.repeat(32)}`
    for (const [env, setting] of [
      [
        { ...production, ATTESTATION_PRIVATE_KEY: GAS_KEY.toUpperCase().replace('0X', '0x') },
        'FACILITATOR_PRIVATE_KEY',
      ],
      [{ ...production, FACILITATOR_PRIVATE_KEYS: pool, ATTESTATION_PRIVATE_KEY: pool }, 'FACILITATOR_PRIVATE_KEY'],
    ] as const) {
      const line = refusal(env)
      expect(line).to.match(/^configuration: ATTESTATION_PRIVATE_KEY must not be a gas key/)
      expect(line).to.include(setting)
      expect(line).not.to.include(env.ATTESTATION_PRIVATE_KEY.slice(2, 20).toLowerCase())
    }
    expect(refusal({ ...production, ATTESTATION_PRIVATE_KEY: '0x12' })).to.equal(
      'configuration: ATTESTATION_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key',
    )
    expect(refusal({ ...production, ATTESTATION_RETIRED_ADDRESSES: '0x12' })).to.match(
      /^configuration: ATTESTATION_RETIRED_ADDRESSES must be a comma-separated list of 0x-prefixed 20-byte hex/,
    )
    expect(E.isRight(loadConfig({}))).to.equal(true)
    expect(helpText()).to.include('ATTESTATION_PRIVATE_KEY').and.not.include('a7'.repeat(32))
  })
})
