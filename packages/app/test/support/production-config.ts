import * as E from 'fp-ts/lib/Either.js'
import { loadConfig } from '../../src/config.js'

/** The gas signing key of `production` (FACILITATOR_PRIVATE_KEY). */
export const GAS_KEY = `0x${'ab'.repeat(32)}`

/** The least a real network's configuration needs: RPC_URL and its companions, an attestation key, an API key. */
export const production = {
  RPC_URL: 'http://127.0.0.1:8545',
  ASSET_ADDRESS: `0x${'12'.repeat(20)}`,
  FACILITATOR_PRIVATE_KEY: GAS_KEY,
  ATTESTATION_PRIVATE_KEY: `0x${'a7'.repeat(32)}`,
  API_KEYS: 'k1',
}

/** The one line a configuration `env` is refused with; throws when it is accepted. */
export const refusal = (env: Record<string, string>): string => {
  const result = loadConfig(env)
  if (E.isRight(result)) throw new Error('expected a configuration error')
  return result.left
}
