import {
  UintFromString,
  type EvmAddress as Address,
  type Authorization,
  type AuthorizationEnd,
  type ChainUnavailable,
  type MinedTransaction,
} from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { pad } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { decodeNodeReceipt, FoundLogs, type NodeLog } from '../submission/node-receipt.js'
import { logWindowsBack, searchBounds } from '../rpc/log-windows.js'
import { AUTHORIZATION_CANCELED, AUTHORIZATION_USED, isPaymentTransfer } from '../submission/receipt-logs.js'
import { decodeAnswer, tryRpc } from '../rpc/rpc-failure.js'

type Terms = Pick<Authorization, 'from' | 'to' | 'value' | 'nonce' | 'validAfter' | 'validBefore'>

/**
 * Where, among the logs of the transaction that used the nonce, the token's `Transfer` that paid this payment is; none
 * when that transaction did not pay it. The token emits an authorization's `AuthorizationUsed(payer, nonce)` and the
 * `Transfer(payer, payee, value)` it authorizes next to each other, so the paying `Transfer` is the log right after
 * this nonce's `AuthorizationUsed`. A payer may sign two authorizations with one nonce: the one mined uses the nonce
 * for both, and pays only its own payee. And one transaction may hold many authorizations (a Multicall3 of them): a
 * `Transfer(payer, payee, value)` elsewhere in it pays another authorization, never this one.
 */
export const paymentLogOf = (logs: ReadonlyArray<NodeLog>, token: Address, a: Terms): number | undefined => {
  const used = logs.findIndex(
    (log) =>
      log.address === token &&
      log.topics[0] === AUTHORIZATION_USED &&
      log.topics[1] === pad(a.from).toLowerCase() &&
      log.topics[2] === a.nonce.toLowerCase(),
  )
  return used >= 0 && isPaymentTransfer(logs[used + 1], token, a) ? used + 1 : undefined
}

/** The using transaction, with the position of the log that paid this payment; none when it paid another. */
const paidBy = async (
  rpc: ChainRpc,
  token: Address,
  a: Terms,
  use: MinedTransaction,
): Promise<MinedTransaction | undefined> => {
  const receipt = decodeNodeReceipt(await rpc.read('eth_getTransactionReceipt', [use.txHash]))
  const paymentLogIndex = paymentLogOf(receipt.logs, token, a)
  return paymentLogIndex === undefined ? undefined : { ...use, paymentLogIndex }
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
 * `TokenReader.authorizationUsedBy`: `eth_getLogs` of the token, by the event's indexed payer and nonce, then the
 * receipt of the transaction that emitted it, for the payment's own `Transfer` (`paymentLogOf`).
 */
export const makeAuthorizationUsedBy =
  (rpc: ChainRpc, token: Address, windowBlocks?: bigint) =>
  (a: Terms, claimedAt: Date, upToBlock: bigint): TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>> =>
    tryRpc('finding the transaction that used the authorization', async () => {
      const topics = [AUTHORIZATION_USED, pad(a.from), a.nonce]
      const first = await firstLog(rpc, token, topics, [a, claimedAt, upToBlock], windowBlocks)
      if (first === undefined) return O.none
      return O.fromNullable(await paidBy(rpc, token, a, minedOf(first)))
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
      const paid = first.topics[0] === AUTHORIZATION_USED ? await paidBy(rpc, token, a, end) : undefined
      return O.some(paid === undefined ? { how: 'cancelled' as const, ...end } : { how: 'used' as const, ...paid })
    })
