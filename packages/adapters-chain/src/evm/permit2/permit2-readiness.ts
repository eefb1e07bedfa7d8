import { HexBytes, type EvmAddress as Address, type Hex, type Permit2Contracts } from '@x402-facilitator/domain'
import { decodeFunctionResult, encodeFunctionData, hashDomain, parseAbi } from 'viem'
import { hasCode } from '../account-code.js'
import type { ChainRpc } from '../rpc/chain-rpc.js'
import { classifyRpcError, decodeAnswer, isRevert, readQuantity } from '../rpc/rpc-failure.js'

const ABI = parseAbi([
  'function PERMIT2() view returns (address)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function nonces(address owner) view returns (uint256)',
])

type View = 'PERMIT2' | 'DOMAIN_SEPARATOR' | 'nonces'

/** A view's answer as viem decodes it; `undefined` when the call reverts (or answers nothing decodable). */
const view = async (rpc: Pick<ChainRpc, 'read'>, to: Address, functionName: View): Promise<unknown> => {
  const args = functionName === 'nonces' ? ['0x0000000000000000000000000000000000000001'] : []
  const data = encodeFunctionData({ abi: ABI, functionName, args: args as never })
  try {
    const answer = decodeAnswer(HexBytes, `${functionName}()`, await rpc.read('eth_call', [{ to, data }, 'latest']))
    return decodeFunctionResult({ abi: ABI, functionName, data: answer })
  } catch (error) {
    const failure = classifyRpcError(error)
    if (isRevert(failure) || (failure.kind === 'answered' && failure.code === 0)) return undefined
    throw error
  }
}

/** What is wrong with one of the Permit2 contracts configured for a network (start-up refuses it). */
export interface Permit2Problem {
  readonly contract: keyof Permit2Contracts
  readonly address: Address
  readonly problem: string
}

/**
 * docs/CONFIGURATION.md (what start-up checks): Permit2 and each configured x402 proxy have code, each proxy's
 * `PERMIT2()` is the configured Permit2, and Permit2's `DOMAIN_SEPARATOR()` is the EIP-712 hash of {name "Permit2",
 * this chain, its address} (a copy placed at another address, or another contract, answers otherwise: every signature
 * would fail).
 */
export const permit2Problem = async (
  rpc: ChainRpc,
  contracts: Permit2Contracts,
): Promise<Permit2Problem | undefined> => {
  // The upto proxy only where it is configured (`none`: Permit2 exact alone).
  const configured = (['permit2', 'exactProxy', 'uptoProxy'] as const).flatMap((contract) => {
    const address = contracts[contract]
    return address === undefined ? [] : [{ contract, address }]
  })
  for (const { contract, address } of configured)
    if (!(await hasCode(rpc, address))) return { contract, address, problem: 'has no code on this chain' }
  for (const { contract, address } of configured.filter(({ contract }) => contract !== 'permit2')) {
    const answer = await view(rpc, address, 'PERMIT2')
    const named = typeof answer === 'string' ? answer.toLowerCase() : undefined
    if (named !== contracts.permit2)
      return {
        contract,
        address,
        problem:
          named === undefined
            ? 'does not answer PERMIT2(): it is no x402 Permit2 proxy'
            : `answers PERMIT2() ${named}, not the configured Permit2 ${contracts.permit2}`,
      }
  }
  const chainId = await readQuantity(rpc, 'eth_chainId')
  const expected = hashDomain({
    domain: { name: 'Permit2', chainId, verifyingContract: contracts.permit2 },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    },
  })
  const separator = (await view(rpc, contracts.permit2, 'DOMAIN_SEPARATOR')) as Hex | undefined
  if (separator?.toLowerCase() !== expected.toLowerCase())
    return {
      contract: 'permit2',
      address: contracts.permit2,
      problem:
        separator === undefined
          ? 'does not answer DOMAIN_SEPARATOR(): it is no Permit2'
          : `answers DOMAIN_SEPARATOR() ${separator}, not Permit2's own at this address on chain ${chainId} ` +
            '(another contract, or a copy made for another address)',
    }
  return undefined
}

/** Whether `token` answers EIP-2612's `nonces(address)` and `DOMAIN_SEPARATOR()` (a permit can be sponsored). */
export const answersEip2612 = async (rpc: ChainRpc, token: Address): Promise<boolean> =>
  (await view(rpc, token, 'nonces')) !== undefined && (await view(rpc, token, 'DOMAIN_SEPARATOR')) !== undefined
