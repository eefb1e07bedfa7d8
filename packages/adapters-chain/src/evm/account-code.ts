import type { EvmAddress as Address } from '@x402-facilitator/domain'
import type { ChainRpc } from './rpc/chain-rpc.js'

const HEX = /^0x[0-9a-fA-F]*$/

/**
 * Whether an `eth_getCode` answer holds code: a hex string of at least one byte that is not `0x0` (some nodes write no
 * code so); undefined when the answer is no hex string at all, for a caller that must tell a garbled answer apart.
 */
export const holdsCode = (answer: unknown): boolean | undefined => {
  if (typeof answer !== 'string' || !HEX.test(answer)) return undefined
  return answer.length > 2 && answer !== '0x0'
}

/** Whether `address` has code at the latest block (one `eth_getCode`); an answer that is no hex string is none. */
export const hasCode = async (rpc: Pick<ChainRpc, 'read'>, address: Address): Promise<boolean> =>
  holdsCode(await rpc.read('eth_getCode', [address, 'latest'])) === true
