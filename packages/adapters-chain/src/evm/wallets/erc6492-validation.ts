import { type EvmAddress as Address, type ChainUnavailable } from '@x402-facilitator/domain'
import { type Erc6492Wrapper } from './erc6492-signature.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { decodeAbiParameters, encodeDeployData } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { erc6492ValidatorAbi, erc6492ValidatorBytecode } from '../../generated/erc6492-validator.js'
import { bytesToHex, isHexString } from '../hex-bytes.js'
import { classifyRpcError, isRevert, tryRpc, UnexpectedAnswer } from '../rpc/rpc-failure.js'

/**
 * Gas the validation lets the factory call use. The settle sends the same call with the transfer in one transaction
 * (`MULTICALL3_SETTLE_GAS_LIMIT`, transfer-gas-limit.ts), sized so that a factory that passed here fits there.
 */
export const ERC6492_FACTORY_GAS = 1_000_000n
/** Gas for the new wallet's `isValidSignature` (a Safe with several owners uses tens of thousands). */
export const ERC6492_CHECK_GAS = 200_000n

export type Erc6492Verdict = 'valid' | 'factory_reverted' | 'not_deployed' | 'rejected'
const VERDICTS: ReadonlyArray<Erc6492Verdict> = ['valid', 'factory_reverted', 'not_deployed', 'rejected']

/** What EIP-6492's universal validator answers for a payer not deployed yet: deploy it (in a call), then ask it. */
export type Erc6492Validation = (
  payer: Address,
  digest: Uint8Array,
  wrapper: Erc6492Wrapper,
) => TE.TaskEither<ChainUnavailable, Erc6492Verdict | { readonly failed: string }>

/**
 * One deployless `eth_call` of `contracts/Erc6492Validator.sol`: its constructor calls the factory, then the payer's
 * ERC-1271 `isValidSignature`, each with bounded gas, and returns the verdict. Nothing is sent: the deployment exists
 * only inside the call. A node that answers the call with an error has not validated anything: `failed`, a refusal.
 */
export const makeErc6492Validation =
  (rpc: ChainRpc): Erc6492Validation =>
  (payer, digest, wrapper) =>
    tryRpc('validating an ERC-6492 signature (deployless eth_call)', async () => {
      const data = encodeDeployData({
        abi: erc6492ValidatorAbi,
        bytecode: erc6492ValidatorBytecode,
        args: [
          payer,
          bytesToHex(digest),
          wrapper.factory,
          wrapper.factoryCalldata,
          wrapper.signature,
          ERC6492_FACTORY_GAS,
          ERC6492_CHECK_GAS,
        ],
      })
      let answer: unknown
      try {
        answer = await rpc.read('eth_call', [{ data }, 'latest'])
      } catch (error) {
        const failure = classifyRpcError(error)
        if (isRevert(failure)) return { failed: failure.message }
        throw error
      }
      if (!isHexString(answer) || answer.length !== 66)
        throw new UnexpectedAnswer(`the ERC-6492 validator answered ${String(answer).slice(0, 20)}…`)
      const [verdict] = decodeAbiParameters([{ type: 'uint256' }], answer)
      const named = VERDICTS[Number(verdict)]
      if (named === undefined) throw new UnexpectedAnswer(`the ERC-6492 validator answered verdict ${verdict}`)
      return named
    })
