import type { EvmAddress as Address, Authorization, Hex, PaymentTrial, TransferTrial } from '@x402-facilitator/domain'
import { decodeErrorResult, encodeFunctionData, numberToHex, size } from 'viem'
import { holdsCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { eip3009TokenAbi } from './eip3009-token-abi.js'
import { isHexString } from '../hex-bytes.js'
import { classifyRpcError, isRevert, UnexpectedAnswer } from '../rpc/rpc-failure.js'
import type { TransferCall } from './transfer-call.js'
import { calldataGas } from '../submission/transfer-gas-limit.js'

/** One payment to try: its authorization, the exact call its settle would send, and the gas that call may use. */
export interface TrialQuery {
  readonly authorization: Authorization
  readonly call: TransferCall
  readonly gasCap: bigint
}

const BALANCE_OF = '0x70a08231'
const AUTHORIZATION_STATE = '0xe94a0102'
const word = (hex: string): string => hex.slice(2).toLowerCase().padStart(64, '0')

const revertMessage = (answer: Hex): string | undefined => {
  if (answer === '0x') return undefined
  try {
    const decoded = decodeErrorResult({ abi: [], data: answer })
    return decoded.errorName === 'Error'
      ? String(decoded.args?.[0])
      : `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`
  } catch {
    return `revert data ${answer.slice(0, 74)}${answer.length > 74 ? '…' : ''}`
  }
}

/** A failed trial: the token's flags (bit 1 paused, 2 payer blacklisted, 4 payee blacklisted) and its revert reason. */
export const failedTrial = (flags: bigint, gasUsed: bigint, answer: Hex, gasCap: bigint): TransferTrial => {
  const reason =
    gasUsed >= gasCap && answer === '0x'
      ? `the call used all of the ${gasCap} gas a payment may use`
      : revertMessage(answer)
  return {
    _tag: 'WouldRevert',
    paused: (flags & 1n) !== 0n,
    payerBlacklisted: (flags & 2n) !== 0n,
    payeeBlacklisted: (flags & 4n) !== 0n,
    ...(reason === undefined ? {} : { reason }),
  }
}

/** The estimate found no gas within its bound that lets the call succeed (nodes word it differently). */
const outOfGas = (failure: ReturnType<typeof classifyRpcError>): boolean =>
  failure.kind === 'answered' && /gas required exceeds|out of gas|exceeds allowance/i.test(failure.message)

/**
 * A payment tried without init code (a node that will not run it): two reads and an `eth_estimateGas` of the call,
 * with the gas it will get (its revert carries the token's reason).
 */
export const makeEstimatedPaymentTrial = (rpc: ChainRpc, token: Address, from: Address) => {
  const call = (to: Address, data: Hex): Promise<unknown> => rpc.read('eth_call', [{ to, data }, 'latest'])

  return async ({ authorization: a, call: c, gasCap }: TrialQuery): Promise<PaymentTrial> => {
    const [balance, used, code] = await Promise.all([
      call(token, `${BALANCE_OF}${word(a.from)}`),
      call(token, `${AUTHORIZATION_STATE}${word(a.from)}${word(a.nonce)}`),
      rpc.read('eth_getCode', [a.from, 'latest']),
    ])
    const payerHasCode = holdsCode(code)
    if (
      !isHexString(balance) ||
      !isHexString(used) ||
      size(balance) !== 32 ||
      size(used) !== 32 ||
      payerHasCode === undefined
    ) {
      throw new UnexpectedAnswer(`${token} did not answer balanceOf/authorizationState`)
    }
    const state = { balance: BigInt(balance), authorizationUsed: BigInt(used) !== 0n, payerHasCode }
    try {
      // With the call's gas bounded as the deployless trial bounds it (the intrinsic cost on top): a payer that needs
      // more is refused.
      // At `latest`, as the reads beside it (an untagged estimate runs at `pending`, where a twin in the pool spends it).
      const estimate = await rpc.read('eth_estimateGas', [
        { from, to: c.to, data: c.data, gas: numberToHex(calldataGas(c.data).intrinsic + gasCap) },
        'latest',
      ])
      if (!isHexString(estimate)) throw new UnexpectedAnswer('eth_estimateGas answered no quantity')
      return { ...state, transfer: { _tag: 'WouldSucceed', gasUsed: BigInt(estimate), gasCap } }
    } catch (error) {
      const failure = classifyRpcError(error)
      // Only a revert is the token's verdict; a rate limit or a missing block is the node's state (a 503 upstream).
      if (outOfGas(failure)) return { ...state, transfer: failedTrial(0n, gasCap, '0x', gasCap) }
      if (!isRevert(failure) || error instanceof UnexpectedAnswer) throw error
      const flag = async (data: Hex, bit: bigint): Promise<bigint> => {
        const answer = await call(token, data).catch(() => '0x')
        return isHexString(answer) && size(answer) === 32 && BigInt(answer) !== 0n ? bit : 0n
      }
      const flags = await Promise.all([
        flag(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'paused' }), 1n),
        flag(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'isBlacklisted', args: [a.from] }), 2n),
        flag(encodeFunctionData({ abi: eip3009TokenAbi, functionName: 'isBlacklisted', args: [a.to] }), 4n),
      ])
      const data = failure.kind === 'answered' && isHexString(failure.data) ? failure.data : '0x'
      const trial = failedTrial(
        flags.reduce((x, y) => x | y, 0n),
        0n,
        data,
        gasCap,
      )
      return {
        ...state,
        transfer:
          trial._tag === 'WouldRevert' && trial.reason === undefined ? { ...trial, reason: failure.message } : trial,
      }
    }
  }
}
