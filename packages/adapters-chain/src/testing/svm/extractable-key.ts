import { generateKeyPairSigner, getBase58Decoder, getBase58Encoder, type KeyPairSigner } from '@solana/kit'

/**
 * A fresh key whose secret can be written down (a dev session's demo payer, a test's fee payer key file): the 64 bytes
 * of a Solana CLI key file (private, then public), as base58.
 */
export const extractableKeyPair = async (): Promise<{ readonly signer: KeyPairSigner; readonly secret: string }> => {
  const signer = await generateKeyPairSigner(true)
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', signer.keyPair.privateKey))
  const bytes = Uint8Array.from([...pkcs8.slice(-32), ...getBase58Encoder().encode(signer.address)])
  return { signer, secret: getBase58Decoder().decode(bytes) }
}
