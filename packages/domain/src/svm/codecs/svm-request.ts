import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { toMalformedRequest, type MalformedRequest } from '../../codecs/decode-failure.js'
import type { SvmPaymentWire } from '../model/svm-payment.js'
import { BASE58_ADDRESS, BASE64_BYTES } from './svm-spellings.js'

const U64_MAX = (1n << 64n) - 1n

const matching = (name: string, pattern: RegExp, maxLength: number) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && u.length <= maxLength && pattern.test(u),
    (u, c) => (typeof u === 'string' && u.length <= maxLength && pattern.test(u) ? t.success(u) : t.failure(u, c)),
    (s) => s,
  )

/** An account or mint: 32 bytes in base58. */
const Base58Key = matching('a base58 address', BASE58_ADDRESS, 44)
/** A transaction (1,232 bytes at most on the wire: 1,644 base64 characters). */
const Base64Transaction = matching('a base64 transaction', BASE64_BYTES, 1_644)

/** An SPL amount: a decimal string of a u64. */
const U64String = new t.Type<bigint, string, unknown>(
  'a decimal string of a u64',
  (u): u is bigint => typeof u === 'bigint',
  (u, c) => {
    if (typeof u !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(u)) return t.failure(u, c)
    const n = BigInt(u)
    return n <= U64_MAX ? t.success(n) : t.failure(u, c)
  },
  (n) => n.toString(),
)
const Text = (name: string, maxLength: number) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string',
    (u, c) => (typeof u === 'string' && u.length > 0 && u.length <= maxLength ? t.success(u) : t.failure(u, c)),
    (s) => s,
  )
const Seconds = new t.Type<number, number, unknown>(
  'a positive whole number of seconds',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'number' && Number.isSafeInteger(u) && u > 0 ? t.success(u) : t.failure(u, c)),
  (n) => n,
)
const Version = t.literal(2)

/** x402 v2's requirements of an `exact` SVM payment (scheme_exact_svm.md): `extra.feePayer`, optionally `extra.memo`. */
const SvmRequirements = t.type(
  {
    scheme: Text('a scheme', 32),
    network: Text('a CAIP-2 network', 64),
    asset: Base58Key,
    amount: U64String,
    payTo: Base58Key,
    maxTimeoutSeconds: Seconds,
    extra: t.partial({ feePayer: Text('a base58 address', 44), memo: Text('a memo of at most 256 bytes', 256) }),
  },
  'a payment requirements object',
)

const SvmBody = t.type(
  {
    x402Version: Version,
    paymentPayload: t.type(
      {
        x402Version: Version,
        accepted: SvmRequirements,
        payload: t.type({ transaction: Base64Transaction }, 'an object with a transaction'),
      },
      'a payment payload object',
    ),
    paymentRequirements: SvmRequirements,
  },
  'a JSON object',
)

/** Whether a v2 body pays on a Solana network (its requirements' CAIP-2 namespace): the SVM codec reads it. */
export const isSvmBody = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null || !('paymentRequirements' in body)) return false
  const requirements = body.paymentRequirements
  return (
    typeof requirements === 'object' &&
    requirements !== null &&
    'network' in requirements &&
    typeof requirements.network === 'string' &&
    requirements.network.startsWith('solana:')
  )
}

/**
 * An x402 v2 body of an `exact` SVM payment, as the request the SVM route reads: its requirements and its transaction.
 * `networkName`: the served network's name for a CAIP-2 id (an unserved one passes unchanged: rule 2b refuses it).
 */
export const decodeSvmBody = (
  body: unknown,
  networkName: (caip2: string) => string,
): E.Either<MalformedRequest, SvmPaymentWire> => {
  const decoded = SvmBody.decode(body)
  if (E.isLeft(decoded)) return E.left(toMalformedRequest(decoded.left))
  const { paymentRequirements: r, paymentPayload: p } = decoded.right
  const { feePayer, memo } = r.extra
  return E.right({
    requirements: {
      scheme: r.scheme,
      network: networkName(r.network),
      asset: r.asset,
      amount: r.amount,
      payTo: r.payTo,
      maxTimeoutSeconds: r.maxTimeoutSeconds,
      extra: { ...(feePayer === undefined ? {} : { feePayer }), ...(memo === undefined ? {} : { memo }) },
    },
    transaction: p.payload.transaction,
  })
}
