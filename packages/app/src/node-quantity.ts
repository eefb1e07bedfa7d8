import { UintFromString } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'

/** A JSON-RPC quantity the node answered, decoded: a malformed answer throws an error that names the call. */
export const nodeQuantity = (answer: unknown, call: string): bigint => {
  const decoded = UintFromString.decode(answer)
  if (E.isLeft(decoded)) throw new Error(`${call}: the node answered ${JSON.stringify(answer)}, not ${UintFromString.name}`)
  return decoded.right
}
