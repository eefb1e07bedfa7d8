import * as E from 'fp-ts/lib/Either.js'
import type { Authorization, Hex, PreparedTransfer, TransferSubmitter } from '@x402-facilitator/domain'
import { sampleNonce, tokenReaderContract, transferSubmitterContract } from '../chain-contract/index.js'
import type { ChainUnderTest } from '../chain-contract/index.js'
import { EXCEEDS_BALANCE_REASON as EXCEEDS, FakeSubmitter, FakeToken, GOOD_SIGNATURE } from '../fakes.js'
import { FACILITATOR, NOW_S, PAYEE, receiptFor, TOKEN } from '../fakes.js'

/**
 * The fakes as the domain's tests drive them: `FakeSubmitter` mines what it sends (its `script`), `FakeToken` answers
 * one payer's state. What a token would do to a payment (revert it, mark its authorization used) is the test's to
 * script, as here: a payment above its payer's balance reverts, one that succeeds is the token's `usedByNonce`.
 */
const fakeChain = async (): Promise<ChainUnderTest> => {
  const submitter = new FakeSubmitter()
  const token = new FakeToken()
  const unpaid = new Set<Hex>()
  const byHash = new Map<Hex, Authorization>()
  const { prepare, prepareReplacement } = submitter
  const signed: TransferSubmitter['prepare'] =
    (authorization, ...rest) =>
    async () => {
      const prepared = await prepare(authorization, ...rest)()
      if (E.isRight(prepared)) byHash.set(prepared.right.txHash, authorization)
      return prepared
    }
  const replaced: TransferSubmitter['prepareReplacement'] = (previous) => async () => {
    const replacement = await prepareReplacement(previous)()
    if (E.isRight(replacement) && replacement.right._tag === 'Prepared') {
      byHash.set(replacement.right.transfer.txHash, byHash.get(previous.txHash)!)
    }
    return replacement
  }
  Object.assign(submitter, { prepare: signed, prepareReplacement: replaced })
  const mine = (prepared: PreparedTransfer) => {
    const batch = submitter.receiptOfBatch(prepared)
    if (batch !== undefined) return batch
    const authorization = byHash.get(prepared.txHash)!
    if (unpaid.has(authorization.nonce)) return { ...receiptFor(prepared, false), revertReason: EXCEEDS }
    token.usedByNonce.set(authorization.nonce, { txHash: prepared.txHash, blockNumber: 42n })
    token.state = { balance: token.state.balance - authorization.value, authorizationUsed: true }
    return receiptFor(prepared, true)
  }
  submitter.script = (prepared) => E.right({ _tag: 'Mined', receipt: mine(prepared) })
  submitter.itemOutcome = (index, item) =>
    unpaid.has(item.authorization.nonce)
      ? { index, succeeded: false, revertReason: EXCEEDS }
      : { index, succeeded: true }
  return {
    submitter: submitter as ChainUnderTest['submitter'],
    account: FACILITATOR,
    token,
    tokenAddress: TOKEN,
    chainId: 31337n,
    payment: async (value, balance = value) => {
      const nonce = sampleNonce()
      const from = `0x${nonce.slice(2, 42)}` as const
      const authorization = { from, to: PAYEE, value, validAfter: 0n, validBefore: NOW_S + 3_600n, nonce }
      if (value > balance) unpaid.add(nonce)
      token.state = { balance, authorizationUsed: false }
      return { authorization, signature: GOOD_SIGNATURE }
    },
    holdBlocks: async () => {
      submitter.script = () => E.right({ _tag: 'Unconfirmed' })
    },
    mineHeld: async () => {
      for (const sent of submitter.broadcasts) {
        if (!submitter.mined.has(sent.txHash)) submitter.mined.set(sent.txHash, mine(sent))
      }
      submitter.script = (prepared) => E.right({ _tag: 'Mined', receipt: mine(prepared) })
    },
    freshSubmitter: async () => ({ submitter: new FakeSubmitter(), account: FACILITATOR }),
  }
}

transferSubmitterContract('on the fakes (FakeSubmitter)', fakeChain)
tokenReaderContract('on the fakes (FakeToken)', fakeChain)
