// Signing payments to chosen payees and watching the chain behind the app: what the token-agnostic e2e tests share.
import type { EvmAddress as Address, Hex } from '@x402-facilitator/domain'
import { keccak256, pad, toBytes } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { signedPaymentBody } from '../../src/tools/demo-payment.js'
import { anvilRpc } from './chain-control.js'
import { waitFor } from './wait-for.js'
import type { TestFacilitator } from './test-facilitator.js'

/** An address nobody has used: a payee whose balance starts at zero. */
export const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey()).toLowerCase() as Address

/** A spec-dialect body signed with `payerKey` for `payer` (an EOA, or a wallet the key owns), paying `payTo`. */
export const paymentBody = (f: TestFacilitator, p: { payerKey: Hex; payer: Address; payTo: Address; value: bigint }) =>
  signedPaymentBody({ ...p, network: f.network, domain: f.domain })

/** Payer `index` of the chain (an EOA holding the token) paying `payTo`. */
export const paymentFromPayer = (f: TestFacilitator, index: number, payTo: Address, value: bigint) =>
  paymentBody(f, { payerKey: f.chain.payers[index]!.privateKey, payer: f.chain.payers[index]!.address, payTo, value })

/** The facilitator account's transaction count, mined and with its pool: a broadcast moves `pending` at once. */
export const facilitatorNonces = async (f: TestFacilitator) => {
  const count = async (block: 'latest' | 'pending') =>
    BigInt((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionCount', [f.chain.facilitator.address, block])) as string)
  return { latest: await count('latest'), pending: await count('pending') }
}

/** Sends from anvil's first unlocked account and waits for the receipt; throws when the transaction reverted. */
export const sendFromAnvilAccount = async (f: TestFacilitator, tx: { to?: Address; data: Hex }) => {
  const [from] = (await anvilRpc(f.chain.rpcUrl, 'eth_accounts', [])) as Address[]
  const hash = (await anvilRpc(f.chain.rpcUrl, 'eth_sendTransaction', [{ from, gas: '0x2dc6c0', ...tx }])) as string
  type Receipt = { status: string; contractAddress: Address | null }
  const receipt = await waitFor(
    'a set-up transaction mined',
    async () => ((await anvilRpc(f.chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) as Receipt | null) ?? undefined,
  )
  if (receipt.status !== '0x1') throw new Error(`set-up transaction ${hash} reverted`)
  return receipt
}

interface CallFrame {
  readonly to?: string
  readonly input?: string
  readonly calls?: ReadonlyArray<CallFrame>
}

/** Every call a mined transaction made, nested ones included (anvil's `callTracer`). */
export const callsOf = async (f: TestFacilitator, txHash: string): Promise<CallFrame[]> => {
  const flatten = (frame: CallFrame): CallFrame[] => [frame, ...(frame.calls ?? []).flatMap(flatten)]
  return flatten(
    (await anvilRpc(f.chain.rpcUrl, 'debug_traceTransaction', [txHash, { tracer: 'callTracer' }])) as CallFrame,
  )
}

const TRANSFER_TOPIC = keccak256(toBytes('Transfer(address,address,uint256)'))

/** How many `Transfer` events of the app's token ever paid `payee`. */
export const transfersTo = async (f: TestFacilitator, payee: Address): Promise<number> => {
  const filter = { address: f.asset, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER_TOPIC, null, pad(payee)] }
  return ((await anvilRpc(f.chain.rpcUrl, 'eth_getLogs', [filter])) as unknown[]).length
}
