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
 * Zero-value transfers of the account to itself at nonces nothing else will fill (docs/ARCHITECTURE.md §5.5):
 * `fillNonceGaps` for recovery (every unmined nonce below the highest journalled one that no journalled attempt holds
 * and this process has not handed out; the journalled ones are adopted so that no new settle is handed one), and
 * `fillDiscarded` for a nonce given back while a higher one already left (a failure before broadcast): filled at once,
 * so the transactions above it are not held back until the next settle or recovery pass.
 */
export const makeNonceGapFiller = ({ rpc, signer, nonces, fees, lane, chainId }: NonceGapFillerOptions) => {
  const fill = async (gaps: ReadonlyArray<bigint>): Promise<void> => {
    if (gaps.length === 0) return
    const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.current()])
    await Promise.all(
      gaps.map((nonce) => {
        const filler = signer.sign({ chainId: id, nonce: Number(nonce), to: signer.address, data: '0x', gas: SELF_TRANSFER_GAS, ...txFees })
        return lane.send(filler.raw, nonce)
      }),
    )
  }

  const fillNonceGaps = (recorded: ReadonlyArray<bigint>): TE.TaskEither<ChainUnavailable, ReadonlyArray<bigint>> =>
    tryRpc('filling account nonce gaps', async () => {
      const mined = await readQuantity(rpc, 'eth_getTransactionCount', [signer.address, 'latest'])
      nonces.observeMined(mined)
      const journalled = new Set(recorded)
      const top = recorded.reduce((a, b) => (a > b ? a : b), mined)
      const gaps: bigint[] = []
      for (let nonce = mined; nonce < top; nonce++) if (nonces.adopt(nonce) && !journalled.has(nonce)) gaps.push(nonce)
      for (const nonce of journalled) nonces.adopt(nonce)
      await fill(gaps)
      return gaps
    })

  /** After `release(nonce)`: when a higher nonce already left, the released one is taken back and filled now. */
  const fillDiscarded = async (nonce: bigint): Promise<void> => {
    if (!nonces.broadcastAbove(nonce) || !nonces.adopt(nonce)) return
    // Best effort: a filler that fails leaves the gap to recovery's next pass.
    await fill([nonce]).catch(() => undefined)
  }

  return { fillNonceGaps, fillDiscarded }
}
