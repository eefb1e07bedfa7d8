import { CANONICAL_PERMIT2_CONTRACTS } from '@x402-facilitator/domain'
import { address, addressOrNone, someOf } from './setting-codecs.js'

/** How a token may be paid, and where Permit2 and x402's proxies are on its network (docs/CONFIGURATION.md). */
export const PERMIT2_SETTINGS = {
  TRANSFER_METHODS: {
    codec: someOf(['eip3009', 'permit2'] as const),
    default: undefined,
    help:
      'how the token may be paid: eip3009 (transferWithAuthorization), permit2 (Permit2 through the x402 ' +
      'proxies; exact and upto), or both [eip3009; dev mode: DUSD both, DUSDT permit2]',
  },
  PERMIT2_ADDRESS: {
    codec: address,
    default: CANONICAL_PERMIT2_CONTRACTS.permit2,
    help: "Uniswap's Permit2 on this network, checked at start-up when a token allows permit2",
  },
  EXACT_PERMIT2_PROXY_ADDRESS: {
    codec: address,
    default: CANONICAL_PERMIT2_CONTRACTS.exactProxy,
    help: "x402's exact Permit2 proxy (x402ExactPermit2Proxy): the spender of a Permit2 exact payment",
  },
  UPTO_PERMIT2_PROXY_ADDRESS: {
    codec: addressOrNone,
    default: CANONICAL_PERMIT2_CONTRACTS.uptoProxy,
    help:
      "x402's upto Permit2 proxy (x402UptoPermit2Proxy): the spender of an upto payment; none where it is not " +
      'deployed (Permit2 exact alone, upto refused)',
  },
} as const
