import * as E from 'fp-ts/lib/Either.js'
import type { VerifyFailure } from '../model/failures.js'
import type { SignatureCheck } from '../ports/signature-verifier.js'

/**
 * Rule 7: the signature (low-s) recovers to `from`, or `from` is a contract that accepts it (ERC-1271), or a wallet
 * its allowed factory would deploy that accepts it (ERC-6492).
 */
export const signatureRecoversPayer = (check: SignatureCheck): E.Either<VerifyFailure, void> => {
  switch (check._tag) {
    case 'SignatureValid':
      return E.right(undefined)
    case 'SignatureInvalid':
      return E.left({ _tag: 'InvalidSignature', detail: check.detail })
    case 'FactoryNotAllowed':
      return E.left({ _tag: 'Erc6492FactoryNotAllowed', factory: check.factory })
  }
}
