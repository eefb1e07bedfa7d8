import type { EvmAddress as Address, ChainUnavailable, Hex } from '@x402-facilitator/domain'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { concatHex, encodeAbiParameters, toFunctionSelector } from 'viem'
import { hasCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { bytesToHex } from '../hex-bytes.js'
import { classifyRpcError, tryRpc } from '../rpc/rpc-failure.js'

/** ERC-1271: what `isValidSignature(bytes32,bytes)` answers for a valid signature. */
const MAGIC_VALUE = '0x1626ba7e'
const IS_VALID_SIGNATURE = toFunctionSelector('isValidSignature(bytes32,bytes)')
const PARAMETERS = [{ type: 'bytes32' }, { type: 'bytes' }] as const

/**
 * Whether `signer` is a contract that accepts `signature` over `digest` (ERC-1271); false for an account without code.
 */
export type Erc1271Check = (
  signer: Address,
  digest: Uint8Array,
  signature: Hex,
) => TE.TaskEither<ChainUnavailable, boolean>

/**
 * Asks the payer itself, as USDC v2.2's SignatureChecker does for a signer with code: two reads (its code, then one
 * `eth_call`), made only when the signature did not recover to the payer, so a key's valid payment costs nothing more.
 * A contract that reverts or answers anything but the magic value has not signed.
 */
export const makeErc1271Check =
  (rpc: ChainRpc): Erc1271Check =>
  (signer, digest, signature) =>
    tryRpc('asking the payer contract about its signature (ERC-1271)', async () => {
      if (!(await hasCode(rpc, signer))) return false
      const data = concatHex([IS_VALID_SIGNATURE, encodeAbiParameters(PARAMETERS, [bytesToHex(digest), signature])])
      try {
        const answer = await rpc.read('eth_call', [{ to: signer, data }, 'latest'])
        return typeof answer === 'string' && answer.slice(0, 10).toLowerCase() === MAGIC_VALUE
      } catch (error) {
        if (classifyRpcError(error).kind === 'answered') return false
        throw error
      }
    })
