import { readFileSync } from 'node:fs'
import { waitFor } from '@x402-facilitator/domain/test-support'
import type { EvmAddress as Address, Authorization, Eip712Domain, Hex } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { randomBytes } from 'node:crypto'
import { signTransferAuthorization } from '../src/evm/signing/sign-transfer-authorization.js'
import type { LocalAccount } from '../src/testing/local-chain.js'

export const randomNonce = (): Hex => `0x${randomBytes(32).toString('hex')}`

export const nowSeconds = (): bigint => BigInt(Math.floor(Date.now() / 1000))

export const authorizationFrom = (
  payer: LocalAccount,
  to: Address,
  value: bigint,
  nonce: Hex = randomNonce(),
): Authorization => ({
  from: payer.address,
  to,
  value,
  validAfter: 0n,
  validBefore: nowSeconds() + 3_600n,
  nonce,
})

export const signedBy = async (payer: LocalAccount, domain: Eip712Domain, authorization: Authorization) => ({
  authorization,
  signature: await signTransferAuthorization({ privateKey: payer.privateKey, domain, authorization }),
})

/** The right of a TaskEither; fails the test with the left otherwise. */
export const right = async <L, A>(task: TE.TaskEither<L, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected Right, got Left ${JSON.stringify(result.left)}`)
  return result.right
}

export const left = async <L, A>(task: TE.TaskEither<L, A>): Promise<L> => {
  const result = await task()
  if (E.isRight(result))
    throw new Error(
      `expected Left, got Right ${JSON.stringify(result.right, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
    )
  return result.left
}

/** Resolves once `condition` holds, looking again every few milliseconds (the shared wait-for-a-state). */
export const eventually = async (condition: () => boolean | Promise<boolean>): Promise<void> => {
  await waitFor('the awaited state', condition, 50_000, 5)
}

/** A zombie (exited, not yet reaped by whoever adopted it) is not alive. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}
