import * as E from 'fp-ts/lib/Either.js'
import { journalUnavailable } from '../../model/failures.js'
import type { Clock } from '../../ports/clock.js'
import type { PenaltyBox } from '../../penalties/penalty-box.js'
import type { ClaimsJournal } from '../../ports/journal/claims-journal.js'
import type { SubmissionItem, SubmissionQueue, SubmissionResult } from '../../ports/submissions.js'
import type { SvmPaymentRequest } from '../model/svm-payment.js'
import type { SvmChain, SvmFeePayer } from '../ports/svm-chain.js'
import { isLanded, judgeSvmReceipt, landedReceipt } from './svm-receipt.js'

/** What a settle submits of an SVM payment: the payer's transaction, to be signed by its fee payer. */
export interface SvmItem extends SubmissionItem {
  readonly payment: SvmPaymentRequest
}

export interface SvmSubmissionDeps {
  readonly clock: Clock
  readonly journal: Pick<ClaimsJournal, 'markSubmitted'>
  readonly chain: Pick<SvmChain, 'send' | 'statuses' | 'blockHashAt'>
  readonly feePayer: SvmFeePayer
  readonly penalties?: PenaltyBox
  /** How often a sent transaction's status is read while its settle waits [250 ms]. */
  readonly statusPollMs?: number
}

/**
 * docs/ARCHITECTURE.md §5.3 on Solana: sign as fee payer → record the attempt → send → await `confirmed`. The signed
 * bytes are recorded before anything leaves: a write that fails or finds the claim gone sends nothing (503; unlike an
 * EVM nonce, an unsent signature holds nothing of ours). Once sent, the answer is what the chain says, or Pending with
 * the signature when the wait ends first (recovery follows it: sent again while its blockhash lives, released once no
 * block can take it). One message is one transaction: the fee payer's signature is deterministic (ed25519), so the
 * same payment signed twice is the same transaction, which a cluster runs once.
 */
export const svmSubmissions = (deps: SvmSubmissionDeps): SubmissionQueue => ({
  submit: async ({ ref, item, waitMs }): Promise<SubmissionResult> => {
    const { payment } = item as SvmItem // this mechanism's own item (svm-mechanism.ts)
    const signing = await deps.feePayer.sign(payment.wire)()
    if (E.isLeft(signing)) return signing
    const { signed, signature } = signing.right
    const sentAt = deps.clock.now()
    const written = await deps.journal.markSubmitted(ref, { txHash: signature, raw: signed, sentAt })()
    if (E.isLeft(written)) return written
    if (written.right === 'stale')
      return E.left(journalUnavailable('the claim was released before its transaction was recorded', true))
    const sent = await deps.chain.send(signed)()
    if (E.isLeft(sent)) return E.right({ _tag: 'Pending', txHash: signature })
    const landed = await awaitLanded(deps, signature, deps.clock.monotonicMs() + waitMs)
    if (landed === undefined) return E.right({ _tag: 'Pending', txHash: signature })
    const receipt = await landedReceipt(deps.chain, signature, landed)
    judgeSvmReceipt(deps.penalties, payment.payer, receipt)
    return E.right({ _tag: 'Mined', receipt, batched: false, sentAt: sentAt.getTime() })
  },
})

/** The transaction's status once a cluster confirmed it, read every `statusPollMs` until `deadline` (monotonic ms). */
const awaitLanded = async (deps: SvmSubmissionDeps, signature: string, deadline: number) => {
  const pollMs = deps.statusPollMs ?? 250
  for (;;) {
    const read = await deps.chain.statuses([signature])()
    const status = E.isRight(read) ? read.right.get(signature) : undefined
    if (isLanded(status)) return status
    const left = deadline - deps.clock.monotonicMs()
    if (left <= 0) return undefined
    await deps.clock.sleep(Math.min(pollMs, left))()
  }
}
