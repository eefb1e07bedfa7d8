import type {
  EvmAddress as Address,
  Authorization,
  Bytes32,
  Hex,
  PayerState,
  PaymentTrial,
} from '@x402-facilitator/domain'
import { decodeErrorResult, numberToHex } from 'viem'
import { holdsCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { isHexString } from '../hex-bytes.js'
import { permit2ErrorsAbi } from './permit2-abi.js'
import { classifyRpcError, isRevert, UnexpectedAnswer } from '../rpc/rpc-failure.js'
import type { TransferCall } from '../token/transfer-call.js'
import { calldataGas } from '../submission/transfer-gas-limit.js'

// Rules 8'–10' for a Permit2 payment (docs/ARCHITECTURE.md §3): the token's balance and allowance to Permit2,
// Permit2's nonce bit, and a trial of the very proxy call the settle would send, read together: the read transport
// sends the reads of one tick as one JSON-RPC batch, so one round trip.

const BALANCE_OF = '0x70a08231'
const ALLOWANCE = '0xdd62ed3e'
const NONCE_BITMAP = '0x4fe02b44'
const word = (hex: string): string => hex.slice(2).toLowerCase().padStart(64, '0')
const isWord = (answer: unknown): answer is Hex => typeof answer === 'string' && answer.length === 66

/** Why the proxy or Permit2 refuses, by custom error. */
const EXPLAINED: Readonly<Record<string, string>> = {
  InvalidNonce: 'Permit2: the nonce is used or cancelled',
  SignatureExpired: 'Permit2: the deadline has passed',
  InvalidSigner: 'Permit2: the signature is not the owner’s',
  InvalidContractSignature: 'Permit2: the owner contract refused the signature',
  InvalidAmount: 'the amount is zero or above the permitted maximum',
  AmountExceedsPermitted: 'upto proxy: the amount is above the permitted maximum',
  UnauthorizedFacilitator: 'upto proxy: the sender is not the witness facilitator',
  Permit2612AmountMismatch: 'proxy: the EIP-2612 permit’s value differs from the permitted amount',
  PaymentTooEarly: 'proxy: validAfter is later than the block',
  InvalidOwner: 'proxy: the owner is the zero address',
  InvalidDestination: 'proxy: the payee is the zero address',
}

/** A proxy or Permit2 custom error in revert data as words (`Name(args): why`); undefined for any other data. */
export const permit2ErrorReason = (data: unknown): string | undefined => {
  if (!isHexString(data) || data.length < 10) return undefined
  try {
    // viem decodes Error(string) and Panic(uint256) whatever the ABI holds.
    const decoded = decodeErrorResult({ abi: permit2ErrorsAbi, data }) as {
      errorName: string
      args?: readonly unknown[]
    }
    if (decoded.errorName === 'Error') return String(decoded.args?.[0])
    const name = `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`
    const why = EXPLAINED[decoded.errorName]
    return why === undefined ? name : `${name}: ${why}`
  } catch {
    return undefined
  }
}

/** A proxy or Permit2 revert as words: its custom error, the token's message, or the node's message and raw data. */
export const permit2RevertReason = (data: unknown, message: string): string =>
  permit2ErrorReason(data) ??
  (isHexString(data) && data.length >= 10 ? `${message} (revert data ${data.slice(0, 74)})` : message)

export interface Permit2ReaderOptions {
  readonly rpc: Pick<ChainRpc, 'read'>
  readonly token: Address
  readonly permit2: Address
  /** Who sends an `exact` settle (anyone may): the trial's sender. An `upto` trial runs from its witness facilitator. */
  readonly from: Address
  /** Gas the proxy call may use in its trial when `FIRST_TRIAL_GAS` does not do [1 000 000]. */
  readonly gasCap?: bigint
}

/**
 * The gas the proxy call gets in its first trial, and so about what its transaction is given: a proxy call used 99 344
 * gas on anvil (exact, DUSDT to a payee holding nothing), `settleWithPermit` with an EIP-2612 permit 134 381
 * (transfer-gas-limit.ts); an ERC-1271 wallet's check adds ≈ 10 000. A call that needs more is tried again with
 * `gasCap` (a second execution, only then). Its limit then: ≈ 300 000 (intrinsic + this, a quarter more).
 */
const FIRST_TRIAL_GAS = 200_000n

/** Refusals the proxy or Permit2 make before any call the payer controls: more gas would not change them. */
const GAS_INDEPENDENT: ReadonlySet<string> = new Set([
  'PaymentTooEarly',
  'InvalidNonce',
  'SignatureExpired',
  'InvalidAmount',
  'AmountExceedsPermitted',
  'UnauthorizedFacilitator',
  'InvalidOwner',
  'InvalidDestination',
  'Permit2612AmountMismatch',
])
const gasIndependent = (reason: string | undefined): boolean =>
  reason !== undefined && GAS_INDEPENDENT.has(reason.slice(0, reason.indexOf('(')))

type Tried = { readonly gas: bigint } & ({ readonly answer: unknown } | { readonly error: unknown })

/** Why a trial's call failed (its revert as words); undefined: it ran out of gas; any other error is thrown. */
const refusal = (error: unknown): string | undefined => {
  const failure = classifyRpcError(error)
  if (failure.kind === 'answered' && isRevert(failure)) return permit2RevertReason(failure.data, failure.message)
  if (failure.kind === 'answered' && /gas required exceeds|out ?of ?gas/i.test(failure.message)) return undefined
  throw error
}

export const makePermit2Reader = ({ rpc, token, permit2, from, gasCap = 1_000_000n }: Permit2ReaderOptions) => {
  const call = (to: Address, data: Hex): Promise<unknown> => rpc.read('eth_call', [{ to, data }, 'latest'])

  /** `balanceOf`, `allowance(payer, Permit2)` and Permit2's `nonceBitmap(payer, nonce >> 8)`, issued in one tick. */
  const reads = (payer: Address, nonce: Bytes32) => {
    const n = BigInt(nonce)
    return Promise.all([
      call(token, `${BALANCE_OF}${word(payer)}`),
      call(token, `${ALLOWANCE}${word(payer)}${word(permit2)}`),
      call(permit2, `${NONCE_BITMAP}${word(payer)}${word(numberToHex(n >> 8n))}`),
    ]).then(([balance, allowance, bitmap]): PayerState => {
      if (!isWord(balance) || !isWord(allowance) || !isWord(bitmap))
        throw new UnexpectedAnswer(`${token} or Permit2 did not answer balanceOf/allowance/nonceBitmap`)
      return {
        balance: BigInt(balance),
        permit2Allowance: BigInt(allowance),
        authorizationUsed: ((BigInt(bitmap) >> (n & 0xffn)) & 1n) === 1n,
      }
    })
  }

  /** The proxy call run once (`eth_call`) from `sender` at the latest block, its call given exactly `gas`. */
  const run = (c: TransferCall, sender: Address, gas: bigint): Promise<Tried> =>
    rpc
      .read('eth_call', [
        { from: sender, to: c.to, data: c.data, gas: numberToHex(calldataGas(c.data).intrinsic + gas) },
        'latest',
      ])
      .then(
        (answer) => ({ gas, answer }),
        (error: unknown) => ({ gas, error }),
      )

  /**
   * The reads and one `eth_call` of the proxy call (from the witness facilitator for `upto`, whose proxy takes no other
   * sender) giving it `FIRST_TRIAL_GAS`; only a failure that more gas could change runs it again with `gasCap`. A call
   * that succeeded with some gas succeeds with as much in the same state: `gasUsed` and `gasCap` are that gas, from
   * which the submitter sets a limit that gives the call at least as much (transfer-gas-limit.ts) — an unused limit
   * costs nothing, and a payer with code gets no less than in its trial.
   */
  const trial = async (
    authorization: Authorization,
    c: TransferCall,
    sender = authorization.permit2?.scheme === 'upto' ? (authorization.permit2.facilitator ?? from) : from,
  ): Promise<PaymentTrial> => {
    const first = gasCap < FIRST_TRIAL_GAS ? gasCap : FIRST_TRIAL_GAS
    // At the latest block, as the reads beside it: a node's default (anvil: pending) would see a transaction still in
    // its pool, e.g. the same Permit2 nonce's payment on another token, and answer its revert instead of "used".
    const [state, code, once] = await Promise.all([
      reads(authorization.from, authorization.nonce),
      rpc.read('eth_getCode', [authorization.from, 'latest']),
      run(c, sender, first),
    ])
    const tried =
      'error' in once && first < gasCap && !gasIndependent(refusal(once.error)) ? await run(c, sender, gasCap) : once
    const payerHasCode = holdsCode(code)
    if (payerHasCode === undefined) throw new UnexpectedAnswer('eth_getCode answered no hex')
    if ('answer' in tried) {
      if (!isHexString(tried.answer)) throw new UnexpectedAnswer('eth_call answered no hex')
      return { ...state, payerHasCode, transfer: { _tag: 'WouldSucceed', gasUsed: tried.gas, gasCap: tried.gas } }
    }
    const reason = refusal(tried.error) ?? `the call used all of the ${tried.gas} gas a payment may use`
    // The proxy checks validAfter before anything else: the latest block is older than it, the next may take it. Only
    // an EOA's payment is sent untried (a payer with code could burn the gas, as payment-trials.ts `untried` says).
    if (reason.startsWith('PaymentTooEarly()') && !payerHasCode)
      return {
        ...state,
        payerHasCode,
        transfer: { _tag: 'NotTried', why: `the latest block is before validAfter ${authorization.validAfter}` },
      }
    return {
      ...state,
      payerHasCode,
      transfer: { _tag: 'WouldRevert', paused: false, payerBlacklisted: false, payeeBlacklisted: false, reason },
    }
  }

  return { payerState: reads, trial }
}
