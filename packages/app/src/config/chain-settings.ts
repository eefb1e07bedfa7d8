import {
  address,
  addressList,
  caip2,
  integer,
  oneOf,
  privateKey,
  text,
  tokenUnits,
  url,
  wei,
} from './setting-codecs.js'
import { PERMIT2_SETTINGS } from './permit2-settings.js'

/** The chain: node, token, keys, fees, finality, batching, payer penalties (docs/CONFIGURATION.md). */
export const CHAIN_SETTINGS = {
  RPC_URL: {
    codec: url(['http', 'https']),
    default: undefined,
    help: 'EVM JSON-RPC endpoint; unset: dev mode (local anvil, demo token, funded payers)',
  },
  NETWORKS: {
    codec: text,
    default: undefined,
    help:
      "several networks and tokens, as JSON: what a config file's `networks` holds (docs/CONFIGURATION.md); " +
      'instead of RPC_URL and the settings of its network and token',
  },
  NETWORK_ID: { codec: text, default: undefined, help: 'network string of the spec dialect [eip155:<chainId>]' },
  NETWORK_CAIP2: {
    codec: caip2,
    default: undefined,
    help: "the CAIP-2 id RPC_URL must serve, checked at start-up [the node's]",
  },
  ASSET_ADDRESS: { codec: address, default: undefined, help: 'the EIP-3009 token (required with RPC_URL)' },
  ...PERMIT2_SETTINGS,
  ASSET_SYMBOL: { codec: text, default: undefined, help: 'symbol reported by /supported [read from the token]' },
  FACILITATOR_PRIVATE_KEY: {
    codec: privateKey,
    default: undefined,
    help: 'the account that submits and pays gas (with RPC_URL, it or FACILITATOR_PRIVATE_KEYS is required)',
  },
  FACILITATOR_PRIVATE_KEYS: {
    codec: text,
    default: undefined,
    help:
      'comma-separated keys of a key pool: one signing lane each, settles go to the least loaded (after ' +
      'FACILITATOR_PRIVATE_KEY when both are set)',
  },
  FACILITATOR_PRIVATE_KEYS_FILE: {
    codec: text,
    default: undefined,
    help: 'a file of pool keys, one per line (# comments); with the two above, all count',
  },
  CONFIRMATIONS: {
    codec: integer(0, 64),
    default: undefined,
    help:
      'finality depth: a settlement is final once this many blocks are on top of its own [by chain id, see ' +
      'docs/CONFIGURATION.md; 1 on anvil]',
  },
  SETTLE_WAIT_FOR: {
    codec: oneOf(['receipt', 'final'] as const),
    default: 'receipt',
    help:
      'settle answers success at the first receipt, or only once the settlement is final (bounded by ' +
      'RECEIPT_TIMEOUT_SECONDS)',
  },
  HEAD_POLL_MS: {
    codec: integer(10, 60_000),
    default: undefined,
    help: 'how often the finality watcher reads the chain head [1000; 100 on anvil]',
  },
  MAX_FEE_PER_GAS: {
    codec: wei,
    default: undefined,
    help: 'fee cap in wei, a hard bound [3 x (the latest base fee + the tip)]',
  },
  RPC_TIMEOUT_MS: { codec: integer(100, 120_000), default: '10000', help: 'bound on every RPC call; past it: 503' },
  RECEIPT_TIMEOUT_SECONDS: {
    codec: integer(1, 3600),
    default: '30',
    help: 'longest a settle waits for its receipt (then 202 settlement_pending)',
  },
  MIN_AMOUNT: {
    codec: tokenUnits,
    default: '1',
    help: "smallest required amount settled, in the token's smallest unit (verify rule 5b)",
  },
  VALIDITY_MARGIN_SECONDS: {
    codec: integer(0, 3600),
    default: undefined,
    help: 'validBefore must be later than now + this [two blocks of the chain, measured at start-up, at least 6]',
  },
  RECEIPT_MODE: {
    codec: oneOf(['watcher', 'sync'] as const),
    default: 'watcher',
    help: 'how receipts are awaited: one block watcher, or EIP-7966 sync send',
  },
  RECOVERY_INTERVAL_MS: {
    codec: integer(100, 3_600_000),
    default: '10000',
    help: 'how often unfinished settlements are reconciled',
  },
  REPLACE_AFTER_MS: {
    codec: integer(100, 3_600_000),
    default: '15000',
    help: 'an unmined transaction this old gets a replacement with raised fees',
  },
  STALL_REPLACE_MS: {
    codec: integer(100, 3_600_000),
    default: '5000',
    help:
      "a key's lowest unmined transaction is replaced at once (raised fees) when the mined nonce has not moved for " +
      'this long since it was sent while later ones of the key wait (a node parked or dropped it); on chains with ' +
      'blocks slower than 2 s set it above two block times',
  },
  CLAIM_TIMEOUT_MS: {
    codec: integer(100, 3_600_000),
    default: '30000',
    help: 'a claim with nothing signed this old is released by recovery',
  },
  UNSETTLEABLE_AFTER_MS: {
    codec: integer(0, 86_400_000),
    default: '600000',
    help:
      'a reorged settlement the token refuses this long (and 3 times) ends unsettleable; an expired one after ' +
      'the 3 tries',
  },
  ERC6492_FACTORIES: {
    codec: addressList,
    default: undefined,
    help:
      'wallet factories a settle may call to deploy an ERC-6492 payer (it pays that gas); unset: none, such ' +
      'payers are refused [dev mode: the demo factory]',
  },
  MULTICALL3_ADDRESS: {
    codec: address,
    default: '0xcA11bde05977b3631167028862bE2a173976CA11',
    help: 'Multicall3, through which an ERC-6492 payer is deployed and paid in one transaction',
  },
  SETTLER_ADDRESS: {
    codec: address,
    default: undefined,
    help:
      'with RPC_URL: the BatchSettler (npm run deploy-settler) through which payments are settled in batches; ' +
      'unset: one transaction per payment. Refused in dev mode, which deploys its own',
  },
  BATCH_MAX_ITEMS: { codec: integer(1, 500), default: '100', help: 'the most payments one settler call carries' },
  BATCH_WINDOW_MS: {
    codec: integer(0, 2_000),
    default: '25',
    help:
      'while a transaction of ours waits for its block, how long a settle may wait for others to share its ' +
      'settler call (none in flight: it goes at once)',
  },
  PAYER_PENALTY_SECONDS: {
    codec: integer(1, 86_400),
    default: '600',
    help:
      'how long a payer whose batch item ran out of gas is not batched, and a payer whose own transaction ' +
      'reverted (without code: for its balance or allowance) is refused (payer_suspended); also the window of ' +
      'CONTRACT_PAYER_LOST_GAS_BUDGET',
  },
  CONTRACT_PAYER_LONE_LOST_GAS_BUDGET: {
    codec: wei,
    default: '5000000',
    help:
      'gas lost to reverted lone transactions of payer contracts (each may burn its trial cap, ≈ 1 000 000) ' +
      'per PAYER_PENALTY_SECONDS past which no payer contract is sent at all (contract_payer_gas_budget_spent)',
  },
  CONTRACT_PAYER_LOST_GAS_BUDGET: {
    codec: wei,
    default: '3000000',
    help:
      'gas lost to payer contracts (failed batch items, reverted transactions) per PAYER_PENALTY_SECONDS past ' +
      'which every payer contract goes alone, never batched',
  },
  PAYER_FUNDS_LOST_GAS_BUDGET: {
    codec: wei,
    default: '2000000',
    help:
      'gas lost to lone transactions of payers without code that reverted for their balance or allowance per ' +
      'PAYER_PENALTY_SECONDS past which a payer without code not seen paying is refused (new_payer_gas_budget_spent)',
  },
  BATCHING: {
    codec: oneOf(['on', 'off'] as const),
    default: 'on',
    help: 'off: no settler, one transaction per payment (dev mode deploys none, SETTLER_ADDRESS is not used)',
  },
  MIN_GAS_BALANCE_WEI: {
    codec: wei,
    default: '10000000000000000',
    help: '/readyz fails below this facilitator balance',
  },
} as const
