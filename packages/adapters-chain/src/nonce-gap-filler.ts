import type { ChainUnavailable } from '@x402-facilitator/domain'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ChainRpc } from './chain-rpc.js'
import type { FeeOracle } from './fee-oracle.js'
import { readQuantity } from './node-answer.js'
import type { NonceAllocator } from './nonce-allocator.js'
import { rightOrThrow, tryRpc } from './rpc-failure.js'
import type { SendLane } from './send-lane.js'
import type { TransactionSigner } from './transaction-signer.js'

export interface NonceGapFillerOptions {
  readonly rpc: ChainRpc
  readonly signer: TransactionSigner
  readonly nonces: NonceAllocator
  readonly fees: FeeOracle
  readonly lane: SendLane
  readonly chainId: TE.TaskEither<ChainUnavailable, number>
}

/** What a zero-value transfer to oneself costs: nothing but the intrinsic gas. */
const SELF_TRANSFER_GAS = 21_000n

/**
 * `TransferSubmitter.fillNonceGaps` (docs/ARCHITECTURE.md §5.5): every unmined nonce of the account below the highest
 * journalled one that no journalled attempt holds and this process has not handed out gets a zero-value transfer to
 * the account itself; the journalled nonces are adopted so that no new settle is handed one.
 */
export const makeNonceGapFiller =
  ({ rpc, signer, nonces, fees, lane, chainId }: NonceGapFillerOptions) =>
  (recorded: ReadonlyArray<bigint>): TE.TaskEither<ChainUnavailable, ReadonlyArray<bigint>> =>
    tryRpc('filling account nonce gaps', async () => {
      const [id, txFees, mined] = await Promise.all([
        rightOrThrow(chainId),
        fees.current(),
        readQuantity(rpc, 'eth_getTransactionCount', [signer.address, 'latest']),
      ])
      nonces.observeMined(mined)
      const journalled = new Set(recorded)
      const top = recorded.reduce((a, b) => (a > b ? a : b), mined)
      const gaps: bigint[] = []
      for (let nonce = mined; nonce < top; nonce++) if (nonces.adopt(nonce) && !journalled.has(nonce)) gaps.push(nonce)
      for (const nonce of journalled) nonces.adopt(nonce)
      await Promise.all(
        gaps.map((nonce) => {
          const filler = signer.sign({ chainId: id, nonce: Number(nonce), to: signer.address, data: '0x', gas: SELF_TRANSFER_GAS, ...txFees })
          return lane.send(filler.raw, nonce)
        }),
      )
      return gaps
    })
