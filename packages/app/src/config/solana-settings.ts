import { bool, integer, text, wei } from './setting-codecs.js'

/** Solana networks and their fee payers (docs/CONFIGURATION.md, "Solana"). */
export const SOLANA_SETTINGS = {
  SOLANA_NETWORKS: {
    codec: text,
    default: undefined,
    help:
      'Solana networks, as JSON: a list like a config file\'s `networks` entries whose caip2 is "solana:…" ' +
      '(those entries of NETWORKS or of the file are read here too)',
  },
  SOLANA_FEE_PAYER_KEYS_FILE: {
    codec: text,
    default: undefined,
    help: "Solana fee payer keys, one a line: a key file's JSON array of 64 bytes, or their base58",
  },
  SOLANA_MIN_FEE_PAYER_LAMPORTS: {
    codec: wei,
    default: '10000000',
    help: 'a fee payer holding fewer lamports sends nothing (readiness says so) [0.01 SOL]',
  },
  SOLANA_STATUS_POLL_MS: {
    codec: integer(10, 10_000),
    default: '250',
    help: "how often a sent Solana transaction's status is read while its settle waits",
  },
  SOLANA_DEV: {
    codec: bool,
    default: 'true',
    help: "dev mode: also serve a local Solana chain (the real SVM in process, under devnet's id)",
  },
  SOLANA_DEV_SLOT_MS: {
    codec: integer(10, 10_000),
    default: '100',
    help: "dev mode: the local Solana chain's slot length (a cluster's is 400 ms)",
  },
} as const
