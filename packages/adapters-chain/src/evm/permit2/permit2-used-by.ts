import {
  CanonicalBytes32,
  HexBytes,
  UintFromString,
  type EvmAddress as Address,
  type Authorization,
  type AuthorizationEnd,
  type ChainUnavailable,
  type MinedTransaction,
} from '@x402-facilitator/domain'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { pad } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { TRANSFER, UNORDERED_NONCE_INVALIDATION } from './permit2-abi.js'
import { decodeNodeReceipt } from '../submission/node-receipt.js'
import { isPaymentTransfer } from '../submission/receipt-logs.js'
import { logWindowsBack, searchBounds, type LogWindow } from '../rpc/log-windows.js'
import { decodePermit2Call } from './permit2-call.js'
import { decodeAnswer, fieldOf, tryRpc } from '../rpc/rpc-failure.js'

const Logs = t.array(
  t.type({
    transactionHash: CanonicalBytes32,
    blockNumber: UintFromString,
    blockHash: CanonicalBytes32,
    data: HexBytes,
  }),
  'a list of logs',
)
type Log = t.TypeOf<typeof Logs>[number]

const mined = (log: Log): MinedTransaction => ({
  txHash: log.transactionHash,
  blockNumber: log.blockNumber,
  blockHash: log.blockHash,
})

/**
 * `TokenReader.authorizationUsedBy` / `authorizationEndedBy` of a Permit2 payment (docs/ARCHITECTURE.md §5c). Permit2
 * logs no use of a nonce: used = a token `Transfer(payer, payee, value)` in the window whose transaction's input is a
 * proxy `settle`/`settleWithPermit` of this owner, nonce and token (each such transaction read once, in one JSON-RPC
 * batch), with the position of that `Transfer` among its transaction's logs (one log pays one payment, §5.5);
 * cancelled = Permit2's `UnorderedNonceInvalidation(owner, word, mask)` with the nonce's bit in `mask`.
 */
export const makePermit2EndSearch = (rpc: ChainRpc, token: Address, permit2: Address, windowBlocks?: bigint) => {
  const logs = async (filter: object) =>
    decodeAnswer(Logs, 'the answer to eth_getLogs', await rpc.read('eth_getLogs', [filter]))
  const used = async (a: Authorization, window: LogWindow): Promise<O.Option<MinedTransaction>> => {
    // Exactly the amount this payment moves: another permit of the payer's with the same nonce may pay this payee less.
    const transfers = (await logs({ address: token, topics: [TRANSFER, pad(a.from), pad(a.to)], ...window })).filter(
      (log) => log.data.length > 2 && BigInt(log.data) === a.value,
    )
    const inputs = await Promise.all(
      transfers.map(async (log) => fieldOf(await rpc.read('eth_getTransactionByHash', [log.transactionHash]), 'input')),
    )
    const at = inputs.findIndex((input) => {
      const call = typeof input === 'string' ? decodePermit2Call(input as `0x${string}`) : undefined
      return call !== undefined && call.nonce === a.nonce && call.owner === a.from && call.token === token
    })
    if (at < 0) return O.none
    const use = mined(transfers[at]!)
    const receipt = decodeNodeReceipt(await rpc.read('eth_getTransactionReceipt', [use.txHash]))
    const paymentLogIndex = receipt.logs.findIndex((log) => isPaymentTransfer(log, token, a))
    return paymentLogIndex < 0 ? O.none : O.some({ ...use, paymentLogIndex })
  }

  const cancelled = async (a: Authorization, window: LogWindow): Promise<O.Option<MinedTransaction>> => {
    const nonce = BigInt(a.nonce)
    const found = await logs({ address: permit2, topics: [UNORDERED_NONCE_INVALIDATION, pad(a.from)], ...window })
    // data: (uint256 word, uint256 mask)
    const log = found.find(
      (l) =>
        l.data.length === 130 &&
        BigInt(`0x${l.data.slice(2, 66)}`) === nonce >> 8n &&
        ((BigInt(`0x${l.data.slice(66)}`) >> (nonce & 0xffn)) & 1n) === 1n,
    )
    return log === undefined ? O.none : O.some(mined(log))
  }

  const usedBy = (
    a: Authorization,
    claimedAt: Date,
    upToBlock: bigint,
  ): TE.TaskEither<ChainUnavailable, O.Option<MinedTransaction>> =>
    tryRpc('finding the transaction that used the Permit2 nonce', async () => {
      for await (const window of logWindowsBack(rpc, upToBlock, searchBounds(a, claimedAt), windowBlocks)) {
        const use = await used(a, window)
        if (O.isSome(use)) return use
      }
      return O.none
    })

  /** Windows back to the payment's time (log-windows.ts); past a cancellation too, for a use older than it. */
  const endedBy = (
    a: Authorization,
    claimedAt: Date,
    upToBlock?: bigint,
  ): TE.TaskEither<ChainUnavailable, O.Option<AuthorizationEnd>> =>
    tryRpc('finding the transaction that used or cancelled the Permit2 nonce', async () => {
      const to =
        upToBlock ??
        decodeAnswer(UintFromString, 'the answer to eth_blockNumber', await rpc.read('eth_blockNumber', []))
      let cancel: O.Option<MinedTransaction> = O.none
      for await (const window of logWindowsBack(rpc, to, searchBounds(a, claimedAt), windowBlocks)) {
        const [use, cancelHere] = await Promise.all([used(a, window), cancelled(a, window)])
        // A payment that happened is what counts, even if the owner invalidated the (already used) nonce afterwards.
        if (O.isSome(use)) return O.some({ how: 'used' as const, ...use.value })
        if (O.isNone(cancel)) cancel = cancelHere
      }
      return O.isSome(cancel) ? O.some({ how: 'cancelled' as const, ...cancel.value }) : O.none
    })

  return { usedBy, endedBy }
}
