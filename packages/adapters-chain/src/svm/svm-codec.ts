import type { SvmCodec } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { readSvmTransaction } from './svm-transaction-reader.js'
import { associatedTokenAccounts } from './svm-token-accounts.js'

/** What the domain cannot read itself: a transaction's bytes, and the token accounts an owner's payments go to. */
export const svmCodec: SvmCodec = {
  read: async (base64) => {
    const read = await readSvmTransaction(base64)
    return E.isLeft(read) ? read : E.right(read.right.transaction)
  },
  tokenAccountsOf: associatedTokenAccounts,
}
