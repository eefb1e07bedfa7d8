import { parseCaip2 } from '@x402-facilitator/domain'
import type { Chain, ChainReadiness, SettlerToCheck } from './modules/chain/chain-family.js'
import {
  type EvmAddress as Address,
  type Eip712Domain,
  type TokenInfo,
  type TransferMethod,
  type Settler,
} from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'

/**
 * What the chain said at start-up: its CAIP-2 name, the token's symbol and decimals, its EIP-712 domain, and the batch
 * settler when one is set and passed its checks.
 */
export interface CheckedChain {
  readonly caip2: string
  readonly token: TokenInfo
  readonly domain: Eip712Domain
  readonly settler?: Settler
  /** Whether the token answers EIP-2612 `nonces(address)` and `DOMAIN_SEPARATOR()`. */
  readonly eip2612: boolean
}

/** What the configuration expects of the chain. */
export interface ExpectedChain {
  readonly networkId: string | undefined
  /** `NETWORK_CAIP2` (or a configuration file's `caip2`): the chain RPC_URL must serve. */
  readonly caip2?: string
  readonly erc6492: Erc6492Route
  readonly settler?: SettlerToCheck & Pick<Settler, 'maxItems' | 'windowMs'>
  readonly token: Address
  /** A token paid through Permit2 only need not answer EIP-3009. */
  readonly transferMethods: ReadonlyArray<TransferMethod>
}

/** Where ERC-6492 settles go (docs/ARCHITECTURE.md, "ERC-6492 payers"). */
export interface Erc6492Route {
  readonly factories: ReadonlyArray<Address>
  readonly multicall3: Address
}

/**
 * With factories allowed, Multicall3 and each factory must be contracts on this chain, or every such settle would
 * revert.
 */
const checkErc6492Route = async ({ hasCode }: ChainReadiness, route: Erc6492Route): Promise<void> => {
  if (route.factories.length === 0) return
  if (!(await hasCode(route.multicall3))) {
    throw new Error(
      `configuration: ERC6492_FACTORIES is set but MULTICALL3_ADDRESS ${route.multicall3} has no code on this ` +
        `chain: deploy Multicall3 there, set MULTICALL3_ADDRESS to it, or unset ERC6492_FACTORIES`,
    )
  }
  for (const factory of route.factories) {
    if (!(await hasCode(factory)))
      throw new Error(`configuration: ERC6492_FACTORIES lists ${factory}, which has no code on this chain`)
  }
}

/**
 * docs/ARCHITECTURE.md §5: the RPC's chain is the configured network's, the token answers EIP-3009, the ERC-6492
 * route (when any factory is allowed) exists, and the batch settler (when set) settles this token for our keys (§5.7).
 */
/** NETWORK_CAIP2 and an `eip155:` NETWORK_ID name the chain the node serves (`caip2`). */
export const checkNetworkNames = (
  { networkId, caip2: expected }: Pick<ExpectedChain, 'networkId' | 'caip2'>,
  caip2: string,
) => {
  if (expected !== undefined && expected !== caip2)
    throw new Error(`configuration: NETWORK_CAIP2 is ${expected} but RPC_URL serves ${caip2}`)
  // A network of another namespace (or an x402 v1 name) is the configuration's own business.
  if (networkId !== undefined && parseCaip2(networkId)?.namespace === 'eip155' && networkId !== caip2) {
    throw new Error(`configuration: NETWORK_ID is ${networkId} but RPC_URL serves ${caip2}`)
  }
}

export const checkChain = async (
  { readiness, tokenReader }: Pick<Chain, 'readiness' | 'tokenReader'>,
  { networkId, caip2: expected, erc6492, settler, token, transferMethods }: ExpectedChain,
): Promise<CheckedChain> => {
  const caip2 = await readiness.network()
  checkNetworkNames({ networkId, caip2: expected }, caip2)
  if (transferMethods.includes('eip3009')) {
    const probe = await tokenReader.payerState('0x0000000000000000000000000000000000000001', `0x${'00'.repeat(32)}`)()
    if (E.isLeft(probe))
      throw new Error(`the token does not answer EIP-3009 authorizationState/balanceOf: ${probe.left.reason}`)
  }
  const info = await tokenReader.tokenInfo()
  if (E.isLeft(info)) throw new Error(`the token does not answer symbol()/decimals(): ${info.left.reason}`)
  const domain = await tokenReader.domain()
  if (E.isLeft(domain)) throw new Error(`the token's EIP-712 domain could not be read: ${domain.left.reason}`)
  await checkErc6492Route(readiness, erc6492)
  if (settler !== undefined) await readiness.checkSettler(settler)
  return {
    caip2,
    token: info.right,
    domain: domain.right,
    settler: settler && { address: settler.address, maxItems: settler.maxItems, windowMs: settler.windowMs },
    eip2612: await readiness.answersEip2612(token),
  }
}
