import { expect } from 'chai'
import { spawnApp } from './support/app-process.js'

/** Start-up as an operator runs it (main.ts): what it says when it refuses, before touching the chain. */
const refusal = (env: Record<string, string>) =>
  spawnApp(env).then(
    () => 'started',
    (error: Error) => error.message,
  )

describe('end to end: start-up refuses a missing or misused attestation key (docs/ARCHITECTURE.md §4)', function () {
  this.timeout(60_000)
  const gasKey = `0x${'ab'.repeat(32)}`
  const production = {
    RPC_URL: 'http://127.0.0.1:1',
    ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
    FACILITATOR_PRIVATE_KEY: gasKey,
    DATABASE_URL: 'postgres://127.0.0.1:1/none',
    API_KEYS: 'k1',
  }

  it('a real network without ATTESTATION_PRIVATE_KEY: one line naming the setting', async () => {
    const said = await refusal({ ...production, ATTESTATION_PRIVATE_KEY: '' })
    expect(said).to.match(/the app exited \(1\) before it was ready/)
    expect(said).to.include('configuration: ATTESTATION_PRIVATE_KEY is required when RPC_URL is set')
  })

  it('ATTESTATION_PRIVATE_KEY equal to a gas key: named with the gas key setting, the key never shown', async () => {
    const pool = `0x${'ef'.repeat(32)}`
    for (const env of [
      { ...production, ATTESTATION_PRIVATE_KEY: gasKey },
      {
        ...production,
        FACILITATOR_PRIVATE_KEYS: pool,
        ATTESTATION_PRIVATE_KEY: pool.toUpperCase().replace('0X', '0x'),
      },
    ]) {
      const said = await refusal(env)
      expect(said).to.match(/the app exited \(1\) before it was ready/)
      expect(said).to.include('configuration: ATTESTATION_PRIVATE_KEY must not be a gas key')
      expect(said).to.include('FACILITATOR_PRIVATE_KEY')
      expect(said.toLowerCase()).not.to.include(env.ATTESTATION_PRIVATE_KEY.slice(2, 34).toLowerCase())
    }
  })
})
