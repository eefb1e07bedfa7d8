import type { Address, Authorization, Bytes32, Hex, PayerState, PaymentTrial } from '@x402-facilitator/domain'
import { decodeErrorResult, numberToHex } from 'viem'
import { holdsCode } from './account-code.js'
import type { ChainRpc } from './chain-rpc.js'
import { isHexString } from './hex-bytes.js'
import { permit2ErrorsAbi } from './permit2-abi.js'
import { classifyRpcError, isRevert, UnexpectedAnswer } from './rpc-failure.js'
import type { TransferCall } from './transfer-call.js'
import { calldataGas } from './transfer-gas-limit.js'

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
  /** Gas the proxy call may use in its trial [1 000 000]. */
  readonly gasCap?: bigint
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

  /**
   * The reads and an `eth_estimateGas` of the proxy call (from the witness facilitator for `upto`, whose proxy takes no
   * other sender), bounded by `gasCap` as the deployless trials bound theirs. `gasUsed` leaves the intrinsic cost out:
   * the gas limit (transfer-gas-limit.ts) adds it back with the margin.
   */
  const trial = async (
    authorization: Authorization,
    c: TransferCall,
    sender = authorization.permit2?.scheme === 'upto' ? (authorization.permit2.facilitator ?? from) : from,
  ): Promise<PaymentTrial> => {
    const { intrinsic } = calldataGas(c.data)
    // At the latest block, as the reads beside it: a node's default (anvil: pending) would see a transaction still in
    // its pool, e.g. the same Permit2 nonce's payment on another token, and answer its revert instead of "used".
    const gas = numberToHex(intrinsic + gasCap)
    const estimate = rpc.read('eth_estimateGas', [{ from: sender, to: c.to, data: c.data, gas }, 'latest']).then(
      (gas) => ({ gas }),
      (error: unknown) => ({ error }),
    )
    const [state, code, tried] = await Promise.all([
      reads(authorization.from, authorization.nonce),
      rpc.read('eth_getCode', [authorization.from, 'latest']),
      estimate,
    ])
    const payerHasCode = holdsCode(code)
    if (payerHasCode === undefined) throw new UnexpectedAnswer('eth_getCode answered no hex')
    if ('gas' in tried) {
      if (!isHexString(tried.gas)) throw new UnexpectedAnswer('eth_estimateGas answered no quantity')
      const used = BigInt(tried.gas) - intrinsic
      return { ...state, payerHasCode, transfer: { _tag: 'WouldSucceed', gasUsed: used > 0n ? used : 0n, gasCap } }
    }
    const failure = classifyRpcError(tried.error)
    if (failure.kind !== 'answered' || !(isRevert(failure) || /gas required exceeds|out of gas/i.test(failure.message)))
      throw tried.error
    const reason = isRevert(failure)
      ? permit2RevertReason(failure.data, failure.message)
      : `the call used all of the ${gasCap} gas a payment may use`
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
