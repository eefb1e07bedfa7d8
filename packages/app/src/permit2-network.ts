import type { ChainReadiness } from './modules/chain/chain-family.js'
import type { Permit2Contracts, TransferMethod } from '@x402-facilitator/domain'
import type { Config } from './config.js'

type Permit2Settings = Pick<
  Config,
  'TRANSFER_METHODS' | 'PERMIT2_ADDRESS' | 'EXACT_PERMIT2_PROXY_ADDRESS' | 'UPTO_PERMIT2_PROXY_ADDRESS'
>

/** A token's `TRANSFER_METHODS` (`transferMethods`): unset, EIP-3009 only, as every token was before Permit2. */
export const transferMethodsOf = (config: Pick<Config, 'TRANSFER_METHODS'>): ReadonlyArray<TransferMethod> =>
  config.TRANSFER_METHODS ?? ['eip3009']

/**
 * A network's Permit2 and x402 proxies (network settings, the same in each of its tokens' composed settings), when
 * some token of it may be paid through Permit2; else none: the network has nothing to check or advertise of them.
 */
export const permit2Of = (
  tokens: ReadonlyArray<{ readonly config: Permit2Settings }>,
): Permit2Contracts | undefined => {
  const first = tokens[0]?.config
  if (first === undefined || !tokens.some(({ config }) => transferMethodsOf(config).includes('permit2')))
    return undefined
  return {
    permit2: first.PERMIT2_ADDRESS,
    exactProxy: first.EXACT_PERMIT2_PROXY_ADDRESS,
    ...(first.UPTO_PERMIT2_PROXY_ADDRESS === 'none' ? {} : { uptoProxy: first.UPTO_PERMIT2_PROXY_ADDRESS }),
  }
}

/** How a refusal names each contract: what it is, its field in a networks file and its variable. */
const NAMES: Record<keyof Permit2Contracts, string> = {
  permit2: 'Permit2 (permit2, PERMIT2_ADDRESS)',
  exactProxy: 'the exact Permit2 proxy (exactPermit2Proxy, EXACT_PERMIT2_PROXY_ADDRESS)',
  uptoProxy: 'the upto Permit2 proxy (uptoPermit2Proxy, UPTO_PERMIT2_PROXY_ADDRESS)',
}

/**
 * docs/CONFIGURATION.md (what start-up checks): a network with a Permit2 token starts only if Permit2 and its
 * proxies (the upto one unless `none`) are where configured and are what they say (adapters-chain's
 * permit2-readiness.ts); else one line naming the network and the contract, and for a missing upto proxy the way to
 * serve Permit2 `exact` alone.
 */
export const checkPermit2Contracts = async (
  readiness: Pick<ChainReadiness, 'permit2Problem'>,
  network: string,
  contracts: Permit2Contracts | undefined,
): Promise<void> => {
  if (contracts === undefined) return
  const found = await readiness.permit2Problem(contracts)
  if (found !== undefined)
    throw new Error(
      `configuration: network ${network}: ${NAMES[found.contract]} ${found.address} ${found.problem} ` +
        '(a token there allows permit2)' +
        (found.contract === 'uptoProxy'
          ? '; where only the exact proxy is deployed, set UPTO_PERMIT2_PROXY_ADDRESS=none (uptoPermit2Proxy: "none") ' +
            'to serve Permit2 exact alone'
          : ''),
    )
}
