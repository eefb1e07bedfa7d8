import type { ChainUnavailable, PreparedTransfer, Replacement } from '@x402-facilitator/domain'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { parseTransaction } from 'viem'
import type { FeeOracle } from '../submission/fee-oracle.js'
import { lowerCase } from '../hex-bytes.js'
import { rightOrThrow, tryRpc } from '../rpc/rpc-failure.js'
import type { TransactionSigner } from './transaction-signer.js'
import { replacementGasLimit, type GasLimits } from '../submission/transfer-gas-limit.js'

/**
 * `TransferSubmitter.prepareReplacement` of one key: the very call of the attempt it replaces (the same payments of a
 * batch, the same route), at its nonce, at higher fees; `gasLimits` for a stored transaction that says no gas limit.
 */
export const makeReplacementSigner =
  (signer: TransactionSigner, fees: FeeOracle, chainId: TE.TaskEither<ChainUnavailable, number>) =>
  (previous: PreparedTransfer, gasLimits: GasLimits): TE.TaskEither<ChainUnavailable, Replacement> =>
    tryRpc('preparing a replacement transaction', async (): Promise<Replacement> => {
      const { to, data, gas } = parseTransaction(previous.raw)
      if (to == null || data === undefined) throw new Error('the stored transaction does not parse as a call')
      const [id, txFees] = await Promise.all([rightOrThrow(chainId), fees.replacing(previous)])
      if (txFees === undefined) return { _tag: 'AtFeeCap' }
      const { raw, hash } = signer.sign({
        chainId: id,
        nonce: Number(previous.accountNonce),
        to: lowerCase(to),
        data,
        gas: gas ?? replacementGasLimit(previous.raw, gasLimits),
        ...txFees,
      })
      return { _tag: 'Prepared', transfer: { txHash: hash, raw, accountNonce: previous.accountNonce, ...txFees } }
    })
