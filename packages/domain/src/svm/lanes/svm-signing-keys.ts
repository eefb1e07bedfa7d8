import * as E from 'fp-ts/lib/Either.js'
import { chainUnavailable } from '../../model/failures.js'
import type { Clock } from '../../ports/clock.js'
import type { KeyFees, SigningKey } from '../../ports/signing-key.js'
import type { SvmPaymentRequest } from '../model/svm-payment.js'
import type { SvmChain, SvmFeePayer } from '../ports/svm-chain.js'
import { svmMechanism } from '../svm-mechanism.js'
import { isLanded, receiptOfStatus } from '../submission/svm-receipt.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as O from 'fp-ts/lib/Option.js'
import { pipe } from 'fp-ts/lib/function.js'

/** What every SVM lane of a route shares beside the core's ports. */
export interface SvmLaneDeps {
  readonly chain: SvmChain
  /** Below this many lamports a fee payer sends nothing (its payments go to another key, or wait). */
  readonly minLamports: bigint
  /** How often a sent transaction's status is read while its settle waits [250 ms]. */
  readonly statusPollMs?: number
}

/** A fee payer's SOL against its next fee, read when never read and again in the background once stale (10 s). */
const feePayerFunds = (chain: SvmChain, clock: Clock, account: string, minLamports: bigint): KeyFees => {
  let lamports: bigint | undefined
  let readAt = 0
  let reading: Promise<void> | undefined
  const read = async () => {
    const got = await chain.lamports(account)()
    if (E.isRight(got)) lamports = got.right
    readAt = clock.monotonicMs()
    reading = undefined
  }
  return {
    get canPay() {
      return lamports === undefined || lamports >= minLamports
    },
    refresh: async () => {
      if (lamports === undefined) return (reading ??= read())
      if (clock.monotonicMs() - readAt > 10_000) void (reading ??= read())
    },
  }
}

/**
 * A route's SVM fee payers (docs/ARCHITECTURE.md §5.8), each opened as a lane: its signing refused while its replica
 * lock is lost, the SVM mechanism over it.
 */
export const svmSigningKeys = (
  svm: SvmLaneDeps,
  feePayers: ReadonlyArray<SvmFeePayer>,
): ReadonlyArray<SigningKey<SvmPaymentRequest>> =>
  feePayers.map((feePayer) => ({
    account: feePayer.address,
    open: ({ ports, lock }) => {
      const guarded: SvmFeePayer = {
        address: feePayer.address,
        sign: (wire) =>
          lock.lockHeld
            ? feePayer.sign(wire)
            : TE.left(chainUnavailable(lock.settleRefusal() ?? 'replica lock not held')),
      }
      const mechanism = svmMechanism({
        ...ports,
        chain: svm.chain,
        feePayer: guarded,
        ...(svm.statusPollMs === undefined ? {} : { statusPollMs: svm.statusPollMs }),
      })
      const receipts = {
        receiptOf: (hashes: ReadonlyArray<string>) =>
          pipe(
            svm.chain.statuses(hashes),
            TE.map((statuses) =>
              O.fromNullable(
                hashes.flatMap((hash) => {
                  const status = statuses.get(hash)
                  return isLanded(status) ? [receiptOfStatus(hash, status)] : []
                })[0],
              ),
            ),
          ),
      }
      return { mechanism, fees: feePayerFunds(svm.chain, ports.clock, feePayer.address, svm.minLamports), receipts }
    },
  }))
