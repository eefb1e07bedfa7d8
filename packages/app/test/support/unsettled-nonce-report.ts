import type { EvmAddress as Address } from '@x402-facilitator/domain'
import { encodeFunctionData, keccak256, pad, parseAbi, toBytes, decodeFunctionResult, type Hex } from 'viem'
import { PERMIT2_ADDRESS } from '@x402-facilitator/adapters-chain/testing'
import { anvilRpc } from './chain-control.js'
import type { Permit2Chain, Row } from './permit2-chain.js'

const PERMIT2 = parseAbi(['function nonceBitmap(address owner, uint256 word) view returns (uint256)'])
const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'))

/** Whether Permit2 marked `nonce` of `owner` used (bit `nonce & 0xff` of word `nonce >> 8`). */
const permit2NonceUsed = async (rpcUrl: string, owner: Address, nonce: bigint): Promise<boolean> => {
  const data = encodeFunctionData({ abi: PERMIT2, functionName: 'nonceBitmap', args: [owner, nonce >> 8n] })
  const answer = (await anvilRpc(rpcUrl, 'eth_call', [{ to: PERMIT2_ADDRESS, data }, 'latest'])) as Hex
  const word = decodeFunctionResult({ abi: PERMIT2, functionName: 'nonceBitmap', data: answer })
  return ((word >> (nonce & 0xffn)) & 1n) === 1n
}

/** The transactions that moved `payer`'s tokens (either of `tokens`), with the value moved. */
const transfersFrom = async (rpcUrl: string, payer: string, tokens: ReadonlyArray<string>) => {
  type Log = { address: string; transactionHash: string; data: string; blockNumber: string }
  const logs = (await anvilRpc(rpcUrl, 'eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest', address: tokens, topics: [TRANSFER_TOPIC, pad(payer as Hex)] },
  ])) as Log[]
  return logs.map((l) => ({ token: l.address, tx: l.transactionHash, value: BigInt(l.data), block: l.blockNumber }))
}

/**
 * What a failed exactly-once check needs to be understood: every row of the nonce with its attempts, the answers its
 * payloads got, whether Permit2 marked the nonce used, the payer's transfers, and the app's log lines naming it.
 */
export const unsettledNonceReport = async (
  setUp: Permit2Chain,
  nonce: bigint,
  answers: ReadonlyArray<{ asset: string; status: number; body: unknown }>,
  appOutput: string,
): Promise<string> => {
  const rows = (await setUp.rows()).filter((r) => BigInt(r.nonce!) === nonce)
  const attemptsOf = (row: Row) =>
    setUp.db.knex('settlement_attempts').where({ settlement_id: row.id }).orderBy('id') as Promise<Row[]>
  const described = await Promise.all(
    rows.map(async (row) => ({
      ...row,
      requirements: undefined,
      signature: undefined,
      permit2: undefined,
      attempts: (await attemptsOf(row)).map(({ raw: _raw, ...attempt }) => attempt),
    })),
  )
  const payer = (rows[0]?.payer ?? '') as Address
  const nonceHex = `0x${nonce.toString(16).padStart(64, '0')}`
  const chain = payer
    ? {
        permit2NonceUsed: await permit2NonceUsed(setUp.chain.rpcUrl, payer, nonce),
        transfersFromPayer: await transfersFrom(setUp.chain.rpcUrl, payer, [setUp.asset, setUp.chain.tokenAddress]),
      }
    : 'no row: payer unknown'
  const logLines = appOutput
    .split('\n')
    .filter((line) => line.includes(nonceHex) || rows.some((r) => line.includes(`"id":${r.id}`)))
  return JSON.stringify(
    { nonce: nonceHex, rows: described, answers, chain, appLogLines: logLines },
    (_, v) => (typeof v === 'bigint' ? v.toString() : v),
    2,
  )
}
