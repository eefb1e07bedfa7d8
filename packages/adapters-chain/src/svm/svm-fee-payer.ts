import {
  createKeyPairSignerFromBytes,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type KeyPairSigner,
} from '@solana/kit'
import { chainUnavailable, type SvmFeePayer } from '@x402-facilitator/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * A fee payer key from its secret: a Solana CLI key file's JSON array of 64 bytes, or those bytes in base58 (what
 * wallets export). The secret is never logged, nor put in an error.
 */
export const svmKeyPairFromSecret = async (secret: string): Promise<KeyPairSigner> => {
  const text = secret.trim()
  let bytes: Uint8Array
  try {
    bytes = text.startsWith('[')
      ? Uint8Array.from(JSON.parse(text) as number[])
      : Uint8Array.from(getBase58Encoder().encode(text))
  } catch {
    throw new Error('a Solana fee payer key is a JSON array of 64 bytes or their base58; this one is neither')
  }
  if (bytes.length !== 64) throw new Error(`a Solana fee payer key has 64 bytes; this one has ${bytes.length}`)
  return createKeyPairSignerFromBytes(bytes)
}

/** Signs a payer's transaction as its fee payer: our signature, the first, is the transaction's id. */
export const makeSvmFeePayer = (signer: KeyPairSigner): SvmFeePayer => ({
  address: signer.address,
  sign: (base64) =>
    TE.tryCatch(
      async () => {
        const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64))
        const signed = await partiallySignTransaction([signer.keyPair], transaction)
        return { signed: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) }
      },
      (error) => chainUnavailable(`the fee payer could not sign: ${(error as Error).message}`),
    ),
})

/** A fee payer from its secret (svmKeyPairFromSecret), ready to sign. */
export const svmFeePayerFromSecret = async (secret: string): Promise<SvmFeePayer> =>
  makeSvmFeePayer(await svmKeyPairFromSecret(secret))
