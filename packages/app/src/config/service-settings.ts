import { addressList, bool, integer, list, oneOf, privateKey, proxyCount, text, url } from './setting-codecs.js'

/** The HTTP service, its callers, its database and its logs (docs/CONFIGURATION.md). */
export const SERVICE_SETTINGS = {
  PORT: { codec: integer(0, 65535), default: '4021', help: 'listen port' },
  HOST: { codec: text, default: '127.0.0.1', help: 'listen address' },
  DATABASE_URL: {
    codec: url(['postgres', 'postgresql']),
    default: undefined,
    help: 'Postgres; unset: embedded Postgres in DATA_DIR/postgres',
  },
  DATA_DIR: { codec: text, default: '.data', help: 'where dev mode keeps its embedded Postgres' },
  DB_TIMEOUT_MS: { codec: integer(100, 120_000), default: '5000', help: 'bound on every journal call; past it: 503' },
  HEADERS_TIMEOUT_MS: {
    codec: integer(100, 600_000),
    default: '10000',
    help: 'a client must send its request headers within this',
  },
  REQUEST_TIMEOUT_MS: {
    codec: integer(100, 600_000),
    default: '30000',
    help: 'a client must send its whole request within this',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    codec: integer(100, 600_000),
    default: '5000',
    help: 'an idle keep-alive connection is closed after this',
  },
  SHUTDOWN_GRACE_MS: {
    codec: integer(0, 600_000),
    default: '10000',
    help: 'how long shutdown waits for settles in flight',
  },
  DEMO_PAYERS: { codec: integer(1, 100), default: '5', help: 'dev mode: how many funded demo payers' },
  API_KEYS: {
    codec: list,
    default: undefined,
    help: 'comma-separated API keys; set: verify, settle and lookups need Authorization: Bearer <key>',
  },
  API_KEYS_FILE: {
    codec: text,
    default: undefined,
    help: 'a file of API keys, one per line (with API_KEYS, both count)',
  },
  ALLOW_OPEN: {
    codec: bool,
    default: 'false',
    help: 'with RPC_URL: serve verify and settle without API keys (anyone may make the facilitator spend gas)',
  },
  ALLOW_OPEN_UPTO: {
    codec: bool,
    default: 'false',
    help:
      'with RPC_URL and no API keys: settle upto payments too (whoever settles one picks the amount charged, up to ' +
      'its maximum); unset, they are refused upto_caller_not_allowed [dev mode: settled]',
  },
  RATE_LIMIT: {
    codec: integer(0, 1_000_000),
    default: undefined,
    help: 'verify+settle requests per client per window; 0: off [1000; off in dev mode]',
  },
  RATE_LIMIT_WINDOW_SECONDS: { codec: integer(1, 86_400), default: '1', help: 'the rate limit window' },
  TRUST_PROXY: {
    codec: proxyCount,
    default: 'false',
    help:
      'how many proxies you trust in front of the service: the client address is the n-th of X-Forwarded-For ' +
      'from the right (what the client wrote left of it is ignored); true: one, false: none',
  },
  CORS_ORIGINS: { codec: list, default: undefined, help: 'origins allowed by CORS; unset: CORS off' },
  // Operator screening (docs/OPERATIONS.md "Screening").
  DENY_LIST_FILE: {
    codec: text,
    default: undefined,
    help: 'a file of denied addresses, one per line, # comments; a payer or payee on it is refused (address_denied)',
  },
  DENY_LIST_RELOAD_MS: {
    codec: integer(100, 3_600_000),
    default: '5000',
    help: 'how often DENY_LIST_FILE is read again (also on SIGHUP); a bad reload keeps the last good list',
  },
  PROBE_REFRESH_MS: {
    codec: integer(100, 600_000),
    default: '5000',
    help:
      'how often /readyz and the gauges of /metrics re-read the chain and the database (in the background: a ' +
      'scrape reads nothing)',
  },
  // Settlement receipts (docs/ARCHITECTURE.md §4): the attestation key, shared by every replica.
  ATTESTATION_PRIVATE_KEY: {
    codec: privateKey,
    default: undefined,
    help:
      'signs settlement receipts (EIP-712); with RPC_URL required, never a gas key, the same on every replica ' +
      '[dev mode: generated at start]',
  },
  ATTESTATION_RETIRED_ADDRESSES: {
    codec: addressList,
    default: undefined,
    help: 'accounts of earlier attestation keys, still published in /supported (attestation.retired)',
  },
  LOG_LEVEL: {
    codec: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    default: 'info',
    help: 'pino log level',
  },
} as const
