import { bool, integer } from './setting-codecs.js'

/** Bazaar discovery: the catalog of resources paid for through this facilitator (docs/CONFIGURATION.md). */
export const DISCOVERY_SETTINGS = {
  DISCOVERY: {
    codec: bool,
    default: undefined,
    help:
      'catalog what resource servers declare (bazaar) for each payment settled, and serve /discovery/resources and ' +
      '/discovery/search [dev mode: on; else off]',
  },
  DISCOVERY_MAX_AGE_DAYS: {
    codec: integer(1, 3650),
    default: '30',
    help: 'a resource not paid for within this many days is no longer listed',
  },
  DISCOVERY_WAIT_MS: {
    codec: integer(0, 5_000),
    default: '250',
    help:
      "how long a settle's answer waits for its catalog write; past it EXTENSION-RESPONSES says processing and the " +
      'write goes on',
  },
  DISCOVERY_MAX_PER_PAYEE: {
    codec: integer(1, 100_000),
    default: '100',
    help: 'resources one payee may have in the catalog; a declaration past it is rejected',
  },
} as const
