import type { EvmAddress as Address, Authorization, SponsoredPermitTrial } from '@x402-facilitator/domain'
import { encodeFunctionData, parseAbi } from 'viem'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { isHexString } from '../hex-bytes.js'
import { splitPermit } from './permit2-call.js'
import { permit2RevertReason } from './permit2-reader.js'
import { classifyRpcError, isRevert, UnexpectedAnswer } from '../rpc/rpc-failure.js'

const eip2612Abi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function nonces(address owner) view returns (uint256)',
])

/**
 * Rule E1's chain half (docs/ARCHITECTURE.md §3): the sponsored EIP-2612 permit a Permit2 payment carries, run as the
 * token's own `permit` at the latest block, as the proxy's `settleWithPermit` would run it first — the token checks
 * the nonce and the owner's signature (or its ERC-1271 answer). Read beside the owner's next nonce, to say why. Two
 * `eth_call`s, only for a payment that carries a permit. Undefined for any other payment.
 */
export const makeSponsoredPermitCheck =
  (rpc: Pick<ChainRpc, 'read'>, token: Address, permit2: Address) =>
  async (authorization: Authorization): Promise<SponsoredPermitTrial | undefined> => {
    const permit = authorization.permit2?.sponsoredPermit
    if (permit === undefined) return undefined
    const owner = authorization.from
    const { value, deadline, v, r, s } = splitPermit(permit)
    const permitCall = encodeFunctionData({
      abi: eip2612Abi,
      functionName: 'permit',
      args: [owner, permit2, value, deadline, v, r, s],
    })
    const noncesCall = encodeFunctionData({ abi: eip2612Abi, functionName: 'nonces', args: [owner] })
    const [nonce, ran] = await Promise.all([
      rpc.read('eth_call', [{ to: token, data: noncesCall }, 'latest']),
      rpc.read('eth_call', [{ to: token, data: permitCall }, 'latest']).then(
        () => undefined,
        (error: unknown) => {
          const failure = classifyRpcError(error)
          if (failure.kind === 'answered' && isRevert(failure))
            return permit2RevertReason(failure.data, failure.message)
          throw error
        },
      ),
    ])
    if (!isHexString(nonce) || nonce.length !== 66) throw new UnexpectedAnswer(`${token} did not answer nonces(owner)`)
    return ran === undefined ? { _tag: 'Runs' } : { _tag: 'WouldNotRun', tokenNonce: BigInt(nonce), reason: ran }
  }
