import {
  CanonicalBytes32,
  HexBytes,
  UintFromString,
  type Address,
  type Authorization,
  type AuthorizationEnd,
  type ChainUnavailable,
  type MinedTransaction,
} from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { numberToHex, pad } from 'viem'
import type { ChainRpc } from './chain-rpc.js'
import { FoundLogs } from './node-receipt.js'
import { TRANSFER } from './permit2-abi.js'
import { logWindowsBack, searchBounds } from './log-windows.js'
import { AUTHORIZATION_CANCELED, AUTHORIZATION_USED } from './receipt-logs.js'
import { decodeAnswer, tryRpc } from './rpc-failure.js'

const TransferLogs = t.array(t.type({ transactionHash: CanonicalBytes32, data: HexBytes }), 'a list of logs')

type Terms = Pick<Authorization, 'from' | 'to' | 'value' | 'nonce' | 'validAfter' | 'validBefore'>

/**
 * Whether the transaction that used the nonce moved this payment: the token's `Transfer(payer, payee)` of exactly its
 * value in that transaction. A payer may sign two authorizations with one nonce; the one mined uses the nonce for both,
 * and only a copy of this one pays this payee (a use by the other is no payment of this: answered as none by
 * `usedBy`, as a cancellation by `endedBy`).
 */
const movedThePayment = async (rpc: ChainRpc, token: Address, a: Terms, use: MinedTransaction): Promise<boolean> => {
  const at = numberToHex(use.blockNumber)
  const filter = { address: token, topics: [TRANSFER, pad(a.from), pad(a.to)], fromBlock: at, toBlock: at }
  const logs = decodeAnswer(TransferLogs, 'the answer to eth_getLogs', await rpc.read('eth_getLogs', [filter]))
  return logs.some((log) => log.transactionHash === use.txHash && log.data.length > 2 && BigInt(log.data) === a.value)
}

const minedOf = (log: { transactionHash: `0x${string}`; blockNumber: bigint; blockHash: `0x${string}` }) => ({
  txHash: log.transactionHash,
  blockNumber: log.blockNumber,
  blockHash: log.blockHash,
})

/**
 * The first of the token's logs with these topics, searched window by window back to the payment's time
 * (log-windows.ts); the token emits one `AuthorizationUsed` or `AuthorizationCanceled` per authorization.
 */
const firstLog = async (
  rpc: ChainRpc,
  token: Address,
  topics: unknown[],
  [a, claimedAt, to]: [Terms, Date, bigint],
  windowBlocks?: bigint,
) => {
  for await (const window of logWindowsBack(rpc, to, searchBounds(a, claimedAt), windowBlocks)) {
    const filter = { address: token, topics, ...window }
    const [first] = decodeAnswer(FoundLogs, 'the answer to eth_getLogs', await rpc.read('eth_getLogs', [filter]))
    if (first !== undefined) return first
  }
  return undefined
}

/**
 * `TokenReader.authorizationUsedBy`: `eth_getLogs` of the token, by the event's indexed payer and nonce, then one
 * for the payment's `Transfer` in that block (`movedThePayment`).
 */
export const makeAuthorizationUsedBy =
  (rpc: ChainRpc, token: Address, windowBlocks?: bigint) =>
  (a: Terms, claimedAt: Date, upToBlock: bigint): TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>> =>
    tryRpc('finding the transaction that used the authorization', async () => {
      const topics = [AUTHORIZATION_USED, pad(a.from), a.nonce]
      const first = await firstLog(rpc, token, topics, [a, claimedAt, upToBlock], windowBlocks)
      if (first === undefined) return O.none
      const use = minedOf(first)
      return (await movedThePayment(rpc, token, a, use)) ? O.some(use) : O.none
    })

/**
 * `TokenReader.authorizationEndedBy`: `eth_getLogs` of the token for either event of this payer and nonce (and an
 * `eth_blockNumber` first when no block is given); the token emits exactly one of them per authorization. A use that
 * did not move this payment (another authorization of the payer's with the same nonce) ends it as a cancellation does.
 */
export const makeAuthorizationEndedBy =
  (rpc: ChainRpc, token: Address, windowBlocks?: bigint) =>
  (a: Terms, claimedAt: Date, upToBlock?: bigint): TE.TaskEither<ChainUnavailable, O.Option<AuthorizationEnd>> =>
    tryRpc('finding the transaction that used or cancelled the authorization', async () => {
      const to =
        upToBlock ??
        decodeAnswer(UintFromString, 'the answer to eth_blockNumber', await rpc.read('eth_blockNumber', []))
      const topics = [[AUTHORIZATION_USED, AUTHORIZATION_CANCELED], pad(a.from), a.nonce]
      const first = await firstLog(rpc, token, topics, [a, claimedAt, to], windowBlocks)
      if (first === undefined) return O.none
      const end = minedOf(first)
      const paid = first.topics[0] === AUTHORIZATION_USED && (await movedThePayment(rpc, token, a, end))
      return O.some({ how: paid ? ('used' as const) : ('cancelled' as const), ...end })
    })
