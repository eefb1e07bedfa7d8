import type { EvmAddress as Address, Hex, TransferReceipt } from '@x402-facilitator/domain'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { lowerCase } from '../hex-bytes.js'
import { readQuantity } from '../rpc/rpc-failure.js'
import { makeStallWatch, type StallCandidate } from './stall-watch.js'

/** The domain's receipt of the node's (transfer-receipt.ts), judged against one token. */
export type ToReceipt = (receipt: unknown) => Promise<TransferReceipt>

export interface ReceiptWatcher {
  /**
   * The receipt of `hash` (sent at account nonce `nonce`) once mined, as `toReceipt` reads it; undefined when `waitMs`
   * passes first. One watcher serves every token a key settles (docs/ARCHITECTURE.md §5.8): each waiter brings its
   * token's reading, done once per reading and receipt (a batch's payments all wait on one hash). With its signed bytes
   * `raw`, it is sent again through each new primary URL while it waits (rpc-failover.ts).
   */
  readonly wait: (
    hash: Hex,
    nonce: bigint,
    waitMs: number,
    toReceipt: ToReceipt,
    raw?: Hex,
  ) => Promise<TransferReceipt | undefined>
  /** `replacement` (same nonce and call, higher fees) replaces `hash`: its waiters take whichever is mined. */
  readonly follow: (hash: Hex, replacement: Hex) => void
}

export interface ReceiptWatcherOptions {
  readonly rpc: ChainRpc
  /** The account whose transactions are watched. */
  readonly account: Address
  /** Told every new mined nonce of the account (the nonce allocator forgets what is below). */
  readonly onMinedNonce?: (minedNonce: bigint) => void
  /**
   * Shortest time between the starts of two rounds while the chain moves [min(10, polling interval) ms]. Going round
   * again at once spent more RPC calls (and node time) on polling than on the transfers themselves: measured on anvil
   * at concurrency 32 (600 settlements through the submitter, busy machine), 10 ms took it from ≈ 280 to ≈ 510
   * tx/s. A receipt waits at most this much longer.
   */
  readonly busyIntervalMs?: number
  /** Told the account's lowest waiting transaction when it stalls (stall-watch.ts), once. */
  readonly onStalled?: (hash: Hex) => void
  /** [5 000 ms] */
  readonly stalledAfterMs?: number
}

interface Waiter {
  readonly toReceipt: ToReceipt
  readonly resolve: (receipt: TransferReceipt | undefined) => void
  readonly timer: ReturnType<typeof setTimeout>
}

interface Waiting extends StallCandidate {
  readonly waiters: Waiter[]
  raw?: Hex
  /** Replacements of this transaction (`follow`): its receipt may come under any of them. */
  readonly replacements: Hex[]
  /** When the account's mined nonce first passed this one without a receipt for this hash. */
  missingSince?: number
}

/**
 * One loop for every transaction in flight from one account, not one poller per transaction (which halved the
 * throughput measured on anvil). Each round asks the account's mined nonce (one call); only the transactions below it
 * have their receipts fetched, and those requests leave as one batch. The loop runs while something waits; it goes
 * round again at once while the chain moves and every polling interval otherwise.
 */
export const makeReceiptWatcher = ({
  rpc,
  account,
  onMinedNonce,
  busyIntervalMs,
  onStalled,
  stalledAfterMs = 5_000,
}: ReceiptWatcherOptions): ReceiptWatcher => {
  const busyMs = busyIntervalMs ?? Math.min(10, rpc.pollingIntervalMs)
  const waiting = new Map<Hex, Waiting>()
  let running = false
  let lastMined = -1n
  const stalls = onStalled === undefined ? undefined : makeStallWatch(onStalled, stalledAfterMs)
  /** A nonce consumed by another transaction: give up on this hash after this long (lagging receipt index aside). */
  const replacedAfterMs = Math.max(1_000, rpc.pollingIntervalMs * 10)

  // The node that took our transactions may be the one that failed: the new primary gets the same bytes (same hashes;
  // "already known" if it has them), in nonce order, in one batch.
  rpc.onPrimaryChange(() => {
    const inFlight = [...waiting.values()].filter((entry) => entry.raw !== undefined)
    if (inFlight.length === 0) return
    inFlight.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0))
    const sends = inFlight.map((entry) => ({ method: 'eth_sendRawTransaction', params: [entry.raw] }))
    // Each outcome is the node's business: a receipt, or the wait's own deadline, ends the wait as before.
    rpc.writeBatch(sends).catch(() => undefined)
  })

  /** Each waiter gets `receipt` as its token reads it, or undefined; its own deadline still holds while it is read. */
  const finish = (entry: Waiting, receipt: unknown) => {
    if (waiting.get(entry.hash) === entry) waiting.delete(entry.hash)
    // A receipt that cannot be read whole is no answer: the settle waits no more and answers 202; recovery reads it.
    const readings = new Map<ToReceipt, Promise<TransferReceipt | undefined>>()
    for (const { toReceipt, resolve, timer } of entry.waiters) {
      if (receipt === undefined) {
        clearTimeout(timer)
        resolve(undefined)
        continue
      }
      let reading = readings.get(toReceipt)
      if (reading === undefined) {
        reading = toReceipt(receipt).catch(() => undefined)
        readings.set(toReceipt, reading)
      }
      void reading.then((read) => {
        clearTimeout(timer)
        resolve(read)
      })
    }
  }

  const round = async (): Promise<boolean> => {
    const minedNonce = await readQuantity(rpc, 'eth_getTransactionCount', [account, 'latest'])
    let progressed = false
    if (minedNonce > lastMined) {
      lastMined = minedNonce
      stalls?.minedMoved()
      onMinedNonce?.(minedNonce)
      progressed = true
    } else stalls?.check(waiting.values(), minedNonce)
    const due = [...waiting.values()].filter((entry) => entry.nonce < minedNonce)
    if (due.length === 0) return progressed
    const receiptOf = (hash: Hex) => rpc.read('eth_getTransactionReceipt', [hash])
    const found = await Promise.all(due.map((entry) => Promise.all([entry.hash, ...entry.replacements].map(receiptOf))))
    const receipts = found.map((ofEntry) => ofEntry.find((receipt) => receipt != null))
    const now = performance.now()
    due.forEach((entry, i) => {
      const receipt = receipts[i]
      if (receipt) {
        finish(entry, receipt)
        progressed = true
      } else if (entry.missingSince === undefined) {
        entry.missingSince = now
      } else if (now - entry.missingSince > replacedAfterMs) {
        finish(entry, undefined)
      }
    })
    return progressed
  }

  const loop = async () => {
    running = true
    try {
      while (waiting.size > 0) {
        const started = performance.now()
        let progressed = false
        try {
          progressed = await round()
        } catch {
          // The node is slow or away: keep watching; each wait ends at its own deadline.
        }
        if (waiting.size === 0) break
        const pause = progressed ? busyMs - (performance.now() - started) : rpc.pollingIntervalMs
        await new Promise((resolve) => (pause <= 0 ? setImmediate(resolve) : setTimeout(resolve, pause)))
      }
    } finally {
      running = false
    }
  }

  return {
    wait: (hash, nonce, waitMs, toReceipt, raw) =>
      new Promise((resolve) => {
        const key = lowerCase(hash)
        let entry = waiting.get(key)
        if (!entry) {
          entry = { hash: key, nonce, waiters: [], replacements: [], sentAt: performance.now() }
          waiting.set(key, entry)
        }
        entry.raw ??= raw
        const current = entry
        const timer = setTimeout(
          () => {
            const at = current.waiters.indexOf(waiter)
            if (at >= 0) current.waiters.splice(at, 1)
            if (current.waiters.length === 0) finish(current, undefined)
            resolve(undefined)
          },
          Math.max(0, waitMs),
        )
        const waiter: Waiter = { toReceipt, resolve, timer }
        current.waiters.push(waiter)
        if (!running) void loop()
      }),

    follow: (hash, replacement) => {
      const entry = waiting.get(lowerCase(hash))
      if (entry === undefined) return
      entry.replacements.push(lowerCase(replacement))
      entry.sentAt = performance.now()
      delete entry.stallTold
    },
  }
}
