import type { EvmAddress as Address, Hex, PaymentTrial, TransferTrial } from '@x402-facilitator/domain'
import { numberToHex } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { failedTrial, type TrialQuery } from './estimated-payment-trial.js'
import { paymentTrialsBytecode } from '../../generated/payment-trials.js'
import { UnexpectedAnswer } from '../rpc/rpc-failure.js'

// One deployless `eth_call` of contracts/PaymentTrials.sol: its init code, its result, and each payment's verdict.

/** One payment as `contracts/PaymentTrials.sol` takes it. */
export interface TrialInput {
  readonly payer: Address
  readonly payee: Address
  readonly nonce: Hex
  readonly target: Address
  readonly data: Hex
}

export interface TrialsResult {
  readonly blockTime: bigint
  readonly words: ReadonlyArray<bigint>
  readonly answers: ReadonlyArray<Hex>
}

const word = (n: number | bigint): string => n.toString(16).padStart(64, '0')
const addressWord = (a: Address): string => a.slice(2).toLowerCase().padStart(64, '0')
const padded = (hexBody: string): string => hexBody + '0'.repeat((64 - (hexBody.length % 64)) % 64)

/**
 * The init code of one trials call: the contract's bytecode and `abi.encode(token, payments, gasCap)`, byte for byte
 * what viem's `encodeDeployData` writes (test/payment-trials-call.test.ts) — hand-written because viem's generic
 * encoder for this tuple array cost ≈ 9 µs a payment and its result decoder ≈ 11 µs (a verify costs ≈ 450 µs
 * of CPU in all; `npm run bench` lost 15–20 % of its verify rate to them).
 */
export const encodeTrialsDeployData = (token: Address, payments: ReadonlyArray<TrialInput>, gasCap: bigint): Hex => {
  const tuples = payments.map((p) => {
    const body = p.data.slice(2)
    return (
      addressWord(p.payer) +
      addressWord(p.payee) +
      p.nonce.slice(2).toLowerCase() +
      addressWord(p.target) +
      word(160) +
      word(body.length / 2) +
      padded(body)
    )
  })
  let offset = 32 * payments.length
  const offsets = tuples.map((tuple) => {
    const at = offset
    offset += tuple.length / 2
    return word(at)
  })
  const head: Hex = `${paymentTrialsBytecode}${addressWord(token)}${word(96)}${word(gasCap)}`
  return `${head}${word(payments.length)}${offsets.join('')}${tuples.join('')}`
}

/** `abi.decode(result, (uint256, uint256[], bytes[]))`, strict: anything else throws. */
export const decodeTrialsResult = (result: string): TrialsResult => {
  if (!/^0x(?:[0-9a-fA-F]{64})+$/.test(result)) throw new TypeError('not whole ABI words')
  const body = result.slice(2)
  const words64 = body.length / 64
  const at = (i: number): bigint => {
    if (i >= words64) throw new RangeError('reads past the end')
    return BigInt(`0x${body.slice(64 * i, 64 * (i + 1))}`)
  }
  const index = (byteOffset: bigint): number => {
    if (byteOffset % 32n !== 0n || byteOffset / 32n >= BigInt(words64))
      throw new RangeError('an offset outside the result')
    return Number(byteOffset / 32n)
  }
  const wordsAt = index(at(1))
  const wordCount = Number(at(wordsAt))
  if (wordsAt + 1 + wordCount > words64) throw new RangeError('words past the end')
  const words = Array.from({ length: wordCount }, (_, i) => at(wordsAt + 1 + i))
  const answersAt = index(at(2))
  const answerCount = Number(at(answersAt))
  if (answersAt + 1 + answerCount > words64) throw new RangeError('answers past the end')
  const answers = Array.from({ length: answerCount }, (_, i): Hex => {
    const start = answersAt + 1 + index(at(answersAt + 1 + i))
    const length = Number(at(start))
    if (length > (words64 - start - 1) * 32) throw new RangeError('an answer past the end')
    return `0x${body.slice(64 * (start + 1), 64 * (start + 1) + 2 * length)}`
  })
  return { blockTime: at(0), words, answers }
}

/**
 * Words per payment in the trials' result: balance, authorization used, answered, succeeded, gas used, flags, has code.
 */
const WORDS = 7

/**
 * One deployless call at the latest block, or at `at` (the block's `time` overridden): each payment's verdict, and
 * the block time the trials ran at. An unexplained failure of an authorization not yet valid then is `NotTried`.
 */
export const runPaymentTrials = async (
  rpc: Pick<ChainRpc, 'read'>,
  { token, from }: { readonly token: Address; readonly from: Address },
  queries: ReadonlyArray<TrialQuery>,
  at?: bigint,
): Promise<{ blockTime: bigint; results: Array<PaymentTrial | Error> }> => {
  const payments = queries.map(({ authorization: a, call: c }) => ({
    payer: a.from,
    payee: a.to,
    nonce: a.nonce,
    target: c.to,
    data: c.data,
  }))
  const blockOverrides = at === undefined ? [] : [{}, { time: numberToHex(at) }]
  const answer = await rpc.read('eth_call', [
    { from, data: encodeTrialsDeployData(token, payments, queries[0]!.gasCap) },
    'latest',
    ...blockOverrides,
  ])
  let decoded: TrialsResult
  try {
    if (typeof answer !== 'string') throw new TypeError('not a string')
    decoded = decodeTrialsResult(answer)
  } catch {
    throw new UnexpectedAnswer(`the payment trials answered ${String(answer).slice(0, 20)}…`)
  }
  const { blockTime, words, answers } = decoded
  if (words.length !== WORDS * queries.length || answers.length !== queries.length) {
    throw new UnexpectedAnswer('the payment trials answered the wrong number of words')
  }
  const results = queries.map(({ authorization }, i) => {
    const w = words.slice(WORDS * i, WORDS * (i + 1))
    if (w[2] !== 1n) return new UnexpectedAnswer(`${token} did not answer balanceOf/authorizationState`)
    // A failure the token's flags explain (paused, blacklisted) is one whatever the block's time: only an unexplained
    // failure of an authorization not yet valid at the trial's block is left to a later block.
    const transfer: TransferTrial =
      w[3] === 1n
        ? { _tag: 'WouldSucceed', gasUsed: w[4]!, gasCap: queries[i]!.gasCap }
        : authorization.validAfter >= blockTime && w[5] === 0n
          ? {
              _tag: 'NotTried',
              why:
                `the ${at === undefined ? 'latest block' : 'next block'} (time ${blockTime}) is not after ` +
                `validAfter ${authorization.validAfter}`,
            }
          : failedTrial(w[5]!, w[4]!, answers[i]!, queries[i]!.gasCap)
    return { balance: w[0]!, authorizationUsed: w[1] !== 0n, payerHasCode: w[6] !== 0n, transfer }
  })
  return { blockTime, results }
}
