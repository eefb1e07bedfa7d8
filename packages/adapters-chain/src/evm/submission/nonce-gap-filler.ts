import type { ChainUnavailable } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { BroadcastQueue } from './broadcast-queue.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import type { FeeOracle } from './fee-oracle.js'
import type { NonceAllocator } from './nonce-allocator.js'
import { readQuantity, rightOrThrow, tryRpc } from '../rpc/rpc-failure.js'
import type { TransactionSigner } from '../signing/transaction-signer.js'

export interface NonceGapFillerOptions {
  readonly rpc: ChainRpc
  readonly signer: TransactionSigner
  readonly nonces: NonceAllocator
  readonly fees: FeeOracle
  readonly broadcasts: BroadcastQueue
  readonly chainId: TE.TaskEither<ChainUnavailable, number>
}

/** What a zero-value transfer to oneself costs: nothing but the intrinsic gas. */
const SELF_TRANSFER_GAS = 21_000n

/**
 * Zero-value transfers of the account to itself at nonces nothing else will fill (docs/ARCHITECTURE.md §5.5):
 * `fillNonceGaps` for recovery (every unmined nonce below the highest journalled one that no journalled attempt holds
 * and this process has not handed out; the journalled ones are adopted so that no new settle is handed one), and
 * `fillReturnedGaps` for nonces given back below one that left (a failure before broadcast): filled at once.
 */
export const makeNonceGapFiller = ({ rpc, signer, nonces, fees, broadcasts, chainId }: NonceGapFillerOptions) => {
  /**
   * Sends a filler at each adopted gap; answers those that left (or may have). A gap whose filler did not leave is
   * disowned, so the next pass sees it as a gap again: kept as adopted, it would hold every later nonce back for good.
   */
  const fill = async (gaps: ReadonlyArray<bigint>): Promise<ReadonlyArray<bigint>> => {
    if (gaps.length === 0) return []
    let id: number
    let txFees: Awaited<ReturnType<FeeOracle['current']>>
    try {
      ;[id, txFees] = await Promise.all([rightOrThrow(chainId), fees.current()])
    } catch (error) {
      for (const nonce of gaps) nonces.disown(nonce)
      throw error
    }
    const sent = await Promise.all(
      gaps.map(async (nonce) => {
        const filler = signer.sign({
          chainId: id,
          nonce: Number(nonce),
          to: signer.address,
          data: '0x',
          gas: SELF_TRANSFER_GAS,
          ...txFees,
        })
        const result = await broadcasts.send(filler.raw, nonce)
        if (E.isRight(result) || result.left._tag === 'SendUncertain') return true
        nonces.disown(nonce)
        return false
      }),
    )
    return gaps.filter((_, i) => sent[i])
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
      return fill(gaps)
    })

  /**
   * Released nonces below one that left (a settle that failed before its broadcast, while another above it went out):
   * taken back and filled now, so the transactions above are not held back until the next settle or recovery pass.
   * Called after a discard and after every broadcast the queue books, since the one above may leave after the release.
   */
  const fillReturnedGaps = async (): Promise<void> => {
    const gaps = nonces.returnedGaps().filter((nonce) => nonces.adopt(nonce))
    // Best effort: a filler that fails leaves the gap to recovery's next pass.
    await fill(gaps).catch(() => undefined)
  }

  return { fillNonceGaps, fillReturnedGaps }
}
