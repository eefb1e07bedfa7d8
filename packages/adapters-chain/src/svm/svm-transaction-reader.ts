import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  verifySignature,
  type Address,
  type Transaction,
} from '@solana/kit'
import type { SvmInstruction, SvmTransaction } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import { createHash } from 'node:crypto'

/** A decoded payment transaction: what the domain's rules read, and the wire transaction the settle signs. */
export interface ReadSvmTransaction {
  readonly transaction: SvmTransaction
  readonly wire: Transaction
}

const decode = (base64: string): E.Either<string, Transaction> => {
  try {
    return E.right(getTransactionDecoder().decode(getBase64Encoder().encode(base64)))
  } catch (error) {
    return E.left(`not a Solana transaction: ${(error as Error).message}`)
  }
}

/** Whether `signer`'s signature is present and verifies over the message (ed25519). */
const signed = async (wire: Transaction, signer: Address): Promise<boolean> => {
  const signature = wire.signatures[signer]
  if (signature === null || signature === undefined) return false
  try {
    return await verifySignature(await getPublicKeyFromAddress(signer), signature, wire.messageBytes)
  } catch {
    return false
  }
}

/**
 * `payload.transaction` (base64) as the domain's model: the message's fee payer, its signers and which of them signed
 * validly, its instructions with their accounts resolved. Accounts a lookup table would supply are not resolved: such a
 * transaction is marked (`usesLookupTables`) and refused by the rules.
 */
export const readSvmTransaction = async (base64: string): Promise<E.Either<string, ReadSvmTransaction>> => {
  const decoded = decode(base64)
  if (E.isLeft(decoded)) return decoded
  const wire = decoded.right
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>
  try {
    message = getCompiledTransactionMessageDecoder().decode(wire.messageBytes)
  } catch (error) {
    return E.left(`its message does not decode: ${(error as Error).message}`)
  }
  // Version 1 messages (configs instead of compute budget instructions) are not the exact scheme's layout.
  if (message.version === 1) return E.left('its message is version 1; an exact payment is a legacy or v0 message')
  const accounts = message.staticAccounts
  const signers = accounts.slice(0, message.header.numSignerAccounts)
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups?.length ?? 0) : 0
  const instructions: SvmInstruction[] = (message.instructions ?? []).map((ix) => ({
    programAddress: accounts[ix.programAddressIndex] ?? '',
    accounts: (ix.accountIndices ?? []).map((index) => accounts[index] ?? ''),
    data: Uint8Array.from(ix.data ?? []),
  }))
  const validity = await Promise.all(signers.map(async (signer) => [signer, await signed(wire, signer)] as const))
  return E.right({
    wire,
    transaction: {
      messageId: createHash('sha256').update(Uint8Array.from(wire.messageBytes)).digest('hex'),
      feePayer: accounts[0] ?? '',
      signers,
      validSignatures: new Set(validity.filter(([, valid]) => valid).map(([signer]) => signer)),
      instructions,
      usesLookupTables: lookups > 0,
    },
  })
}
