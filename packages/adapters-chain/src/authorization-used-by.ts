import {
  UintFromString,
  type Address,
  type AuthorizationEnd,
  type Bytes32,
  type ChainUnavailable,
  type MinedTransaction,
} from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { numberToHex, pad } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { FoundLogs } from './node-receipt.js'
import { AUTHORIZATION_CANCELED, AUTHORIZATION_USED } from './receipt-logs.js'
import { decodeAnswer, tryRpc } from './rpc-failure.js'

/**
 * How far back from the block that showed the use the search looks: the transaction that used the authorization was
 * mined first, normally in the same block or the one before; the bound keeps `eth_getLogs` within what nodes serve.
 */
const LOOKBACK_BLOCKS = 1_000n

/** `TokenReader.authorizationUsedBy`: one `eth_getLogs` of the token, by the event's indexed payer and nonce. */
export const makeAuthorizationUsedBy =
  (rpc: ChainRpc, token: Address) =>
  (payer: Address, nonce: Bytes32, upToBlock: bigint): TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>> =>
    tryRpc('finding the transaction that used the authorization', async () => {
      const filter = {
        address: token,
        topics: [AUTHORIZATION_USED, pad(payer), nonce],
        fromBlock: numberToHex(upToBlock > LOOKBACK_BLOCKS ? upToBlock - LOOKBACK_BLOCKS : 0n),
        toBlock: numberToHex(upToBlock),
      }
      const [first] = decodeAnswer(FoundLogs, 'the answer to eth_getLogs', await rpc.read('eth_getLogs', [filter]))
      return first === undefined
        ? O.none
        : O.some({ txHash: first.transactionHash, blockNumber: first.blockNumber, blockHash: first.blockHash })
    })

/**
 * `TokenReader.authorizationEndedBy`: one `eth_getLogs` of the token for either event of this payer and nonce (and an
 * `eth_blockNumber` first when no block is given); the token emits exactly one of them per authorization.
 */
export const makeAuthorizationEndedBy =
  (rpc: ChainRpc, token: Address) =>
  (payer: Address, nonce: Bytes32, upToBlock?: bigint): TE.TaskEither<ChainUnavailable, O.Option<AuthorizationEnd>> =>
    tryRpc('finding the transaction that used or cancelled the authorization', async () => {
      const to =
        upToBlock ??
        decodeAnswer(UintFromString, 'the answer to eth_blockNumber', await rpc.read('eth_blockNumber', []))
      const filter = {
        address: token,
        topics: [[AUTHORIZATION_USED, AUTHORIZATION_CANCELED], pad(payer), nonce],
        fromBlock: numberToHex(to > LOOKBACK_BLOCKS ? to - LOOKBACK_BLOCKS : 0n),
        toBlock: numberToHex(to),
      }
      const [first] = decodeAnswer(FoundLogs, 'the answer to eth_getLogs', await rpc.read('eth_getLogs', [filter]))
      if (first === undefined) return O.none
      const how = first.topics[0] === AUTHORIZATION_CANCELED ? 'cancelled' : 'used'
      return O.some({ how, txHash: first.transactionHash, blockNumber: first.blockNumber, blockHash: first.blockHash })
    })
