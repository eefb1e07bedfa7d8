import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { makeChainRpc, makeViemTokenReader } from '@x402-facilitator/adapters-chain'
import { CanonicalAddress, HexBytes, type Address } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { signedPaymentBody } from './demo-payment.js'

// `npm run demo`: pays 1.0 token from a demo payer to a fresh address through a running dev server.

/** What `npm start` in dev mode writes to DATA_DIR/dev-session.json. */
const DevSession = t.type({
  url: t.string,
  rpcUrl: t.string,
  network: t.string,
  token: t.type({ address: CanonicalAddress, symbol: t.string, decimals: t.number }),
  payers: t.array(t.type({ address: CanonicalAddress, privateKey: HexBytes })),
})

const fail = (line: string): never => {
  console.error(line)
  process.exit(1)
}
const sessionFile = path.resolve(process.env.DATA_DIR ?? '.data', 'dev-session.json')
const sessionText = await readFile(sessionFile, 'utf8').catch(() => fail(`no dev session at ${sessionFile}: start the facilitator first with \`npm start\``))
const session = E.getOrElseW(() => fail(`${sessionFile} is not a dev session: start the facilitator again with \`npm start\``))(DevSession.decode(JSON.parse(sessionText)))
const payer = session.payers[0]!
const payTo: Address = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`
const token = makeViemTokenReader(makeChainRpc({ rpcUrl: session.rpcUrl }), session.token.address)
const orFail = <A>(result: E.Either<{ reason: string }, A>): A => (E.isRight(result) ? result.right : fail(`the local chain did not answer: ${result.left.reason}`))
const domain = orFail(await token.domain())
const balance = async (owner: Address) => orFail(await token.payerState(owner, `0x${'00'.repeat(32)}`)()).balance
const units = (n: bigint) => `${Number(n) / 10 ** session.token.decimals} ${session.token.symbol}`
const balances = async () => console.log(`payer ${payer.address}: ${units(await balance(payer.address))}; payee ${payTo}: ${units(await balance(payTo))}`)

const body = await signedPaymentBody({ payerKey: payer.privateKey, payer: payer.address, payTo, value: 10n ** BigInt(session.token.decimals), network: session.network, domain })
const post = async (endpoint: string) => {
  const response = await fetch(`${session.url}/api/facilitator/${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  console.log(`POST /api/facilitator/${endpoint} → ${response.status}`, await response.json())
}

await balances()
await post('verify')
await post('settle')
await balances()
