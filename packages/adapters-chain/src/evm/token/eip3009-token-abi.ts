import { demoUsdAbi } from '../../generated/demo-usd.js'

/**
 * The calls, events and errors of an EIP-3009 token as Circle's USDC (FiatTokenV2_2) has them:
 * `transferWithAuthorization` (both signature forms), `authorizationState`, `paused`, `isBlacklisted`, the EIP-712
 * domain reads and the token's errors. The demo token (contracts/DemoUsd.sol) is written to that surface, so its
 * compiled ABI is the one kept: every production token call is encoded and decoded with it.
 */
export const eip3009TokenAbi = demoUsdAbi
