import { randomBytes } from 'node:crypto'
import type { Hex } from '@x402-facilitator/domain'

/** What the check reads of the configuration (config.ts): the attestation key and every gas key. */
interface AttestationSettings {
  readonly ATTESTATION_PRIVATE_KEY?: Hex | undefined
  readonly facilitatorKeys: ReadonlyArray<Hex>
  readonly networks: ReadonlyArray<{ readonly facilitatorKeys?: ReadonlyArray<Hex> }>
}

const sameKey = (a: Hex, b: Hex): boolean => a.toLowerCase() === b.toLowerCase()

/**
 * docs/ARCHITECTURE.md §4: receipts are signed by a key of their own. On a real network (RPC_URL or NETWORKS) it must
 * be set, so every replica signs with the same one; it may never be a gas key (a receipt signer must not be able to
 * spend, nor a leaked gas key forge receipts). The refusal names the setting that holds the same key, never the key.
 */
export const attestationKeyRefusal = (config: AttestationSettings): string | undefined => {
  const key = config.ATTESTATION_PRIVATE_KEY
  if (key === undefined) {
    return config.networks.length > 0
      ? 'configuration: ATTESTATION_PRIVATE_KEY is required when RPC_URL is set (it signs settlement receipts; ' +
          'the same key on every replica)'
      : undefined
  }
  if (config.facilitatorKeys.some((gasKey) => sameKey(gasKey, key)))
    return 'configuration: ATTESTATION_PRIVATE_KEY must not be a gas key (it equals a FACILITATOR_PRIVATE_KEY* key)'
  const network = config.networks.findIndex((n) => (n.facilitatorKeys ?? []).some((gasKey) => sameKey(gasKey, key)))
  if (network >= 0)
    return `configuration: ATTESTATION_PRIVATE_KEY must not be a gas key (it equals a keysFile key of NETWORKS entry ${network + 1})`
  return undefined
}

/** The configured attestation key, or in dev mode one made for this run. */
export const attestationKeyOf = (config: Pick<AttestationSettings, 'ATTESTATION_PRIVATE_KEY'>): Hex =>
  config.ATTESTATION_PRIVATE_KEY ?? `0x${randomBytes(32).toString('hex')}`
