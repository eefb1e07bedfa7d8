import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { SignatureCheck } from '../ports/signature-verifier.js'

/** Rule 7: the signature (low-s) recovers to `from`. */
export const signatureRecoversPayer = (check: SignatureCheck): E.Either<VerifyFailure, void> =>
  check._tag === 'SignatureValid' ? E.right(undefined) : E.left({ _tag: 'InvalidSignature', detail: check.detail })
