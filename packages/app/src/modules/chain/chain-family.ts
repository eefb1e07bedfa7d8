/**
 * What the app takes of its chain family beyond the ports the chain module binds: the adapter's types that name a
 * network's chain, a key's account and the receipt attestor. With chain-module.ts and json-rpc-chain-module.ts, the
 * one place of the app that names adapters-chain (`one-chain-module`, .dependency-cruiser.cjs).
 */
export type { Chain, ChainReadiness, ChainToken, SettlerToCheck } from '@x402-facilitator/adapters-chain'
export type { LocalChain } from '@x402-facilitator/adapters-chain/testing'
export { accountOfKey, eip155ChainId, makeSettlementAttestor } from '@x402-facilitator/adapters-chain'
