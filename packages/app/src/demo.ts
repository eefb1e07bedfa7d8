import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createPublicClient, erc20Abi, http } from 'viem'
import type { Address, Hex } from '@x402-facilitator/domain'
import { signedPaymentBody } from './demo-payment.js'

/** `npm run demo`: pays 1.0 token from a demo payer to a fresh address through a running dev server. */
interface DevSession {
  url: string
  rpcUrl: string
  network: string
  token: { address: Address; symbol: string; decimals: number }
  payers: Array<{ address: Address; privateKey: Hex }>
}

const sessionFile = path.resolve(process.env.DATA_DIR ?? '.data', 'dev-session.json')
const session = JSON.parse(await readFile(sessionFile, 'utf8').catch(() => {
  console.error(`no dev session at ${sessionFile}: start the facilitator first with \`npm start\``)
  process.exit(1)
})) as DevSession
const payer = session.payers[0]!
const payTo = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}` as Address
const chain = createPublicClient({ transport: http(session.rpcUrl) })
const balance = (owner: Address) => chain.readContract({ address: session.token.address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
const units = (n: bigint) => `${Number(n) / 10 ** session.token.decimals} ${session.token.symbol}`
const [name, version] = ['name', 'version'] as const
const domain = {
  name: await chain.readContract({ address: session.token.address, abi: [{ type: 'function', name, stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] }], functionName: name }),
  version: await chain.readContract({ address: session.token.address, abi: [{ type: 'function', name: version, stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] }], functionName: version }).catch(() => '2'),
  chainId: BigInt(await chain.getChainId()),
  verifyingContract: session.token.address,
}

const body = await signedPaymentBody({ payerKey: payer.privateKey, payer: payer.address, payTo, value: 10n ** BigInt(session.token.decimals), network: session.network, domain })
const post = async (endpoint: string) => {
  const response = await fetch(`${session.url}/api/facilitator/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  console.log(`POST /api/facilitator/${endpoint} → ${response.status}`, await response.json())
}

console.log(`payer ${payer.address}: ${units(await balance(payer.address))}; payee ${payTo}: ${units(await balance(payTo))}`)
await post('verify')
await post('settle')
console.log(`payer ${payer.address}: ${units(await balance(payer.address))}; payee ${payTo}: ${units(await balance(payTo))}`)
