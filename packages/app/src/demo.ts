import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { CanonicalAddress, HexBytes, type Address } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { signedPaymentBody } from './demo-payment.js'

// `npm run demo`: pays 1.0 token from a demo payer to a fresh address through a running dev server.
// `npm run demo -- --smart-wallet`: from the deployed demo smart wallet (ERC-1271, its owner key signs).
// `npm run demo -- --counterfactual`: from the demo smart wallet not deployed yet (an ERC-6492 signature; the settle
// deploys it through the demo factory, which dev mode allows).
// `npm run demo -- --network <name> [--token <symbol>]`: on another network dev mode started (the demo payers hold
// every demo token on each); the smart wallets are on the first network.

const SmartWallet = t.type({
  address: CanonicalAddress,
  ownerPrivateKey: HexBytes,
  factory: CanonicalAddress,
  factoryCalldata: HexBytes,
})

/** What `npm start` in dev mode writes to DATA_DIR/dev-session.json. */
const TokenOfSession = t.type({ address: CanonicalAddress, symbol: t.string, decimals: t.number })

const DevSession = t.type({
  url: t.string,
  networks: t.array(t.type({ name: t.string, rpcUrl: t.string, tokens: t.array(TokenOfSession) })),
  rpcUrl: t.string,
  network: t.string,
  token: TokenOfSession,
  payers: t.array(t.type({ address: CanonicalAddress, privateKey: HexBytes })),
  smartWallets: t.type({ deployed: SmartWallet, counterfactual: SmartWallet }),
})

const fail = (line: string): never => {
  console.error(line)
  process.exit(1)
}
const sessionFile = path.resolve(process.env.DATA_DIR ?? '.data', 'dev-session.json')
const sessionText = await readFile(sessionFile, 'utf8').catch(() =>
  fail(`no dev session at ${sessionFile}: start the facilitator first with \`npm start\``),
)
const session = E.getOrElseW(() =>
  fail(`${sessionFile} is not a dev session: start the facilitator again with \`npm start\``),
)(DevSession.decode(JSON.parse(sessionText)))
const args = process.argv.slice(2)
const wallet = args.includes('--counterfactual')
  ? session.smartWallets.counterfactual
  : args.includes('--smart-wallet')
    ? session.smartWallets.deployed
    : undefined
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag)
  return at === -1 ? undefined : (args[at + 1] ?? fail(`${flag} needs a value`))
}
const networkName = valueOf('--network') ?? session.network
const network =
  session.networks.find((n) => n.name === networkName) ??
  fail(`no network ${networkName} in this dev session (it serves ${session.networks.map((n) => n.name).join(', ')})`)
if (wallet && network.name !== session.network) fail(`the demo smart wallets are on ${session.network} only`)
const symbol = valueOf('--token')
const chosen =
  symbol === undefined
    ? network.tokens[0]!
    : (network.tokens.find((token) => token.symbol === symbol) ??
      fail(
        `no token ${symbol} on ${network.name} (it serves ${network.tokens.map((token) => token.symbol).join(', ')})`,
      ))
const payer = wallet ? { address: wallet.address, privateKey: wallet.ownerPrivateKey } : session.payers[0]!
const payTo: Address = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`
const token = makeRpcTokenReader(makeChainRpc({ rpcUrl: network.rpcUrl }), chosen.address)
const orFail = <A>(result: E.Either<{ reason: string }, A>): A =>
  E.isRight(result) ? result.right : fail(`the local chain did not answer: ${result.left.reason}`)
const domain = orFail(await token.domain())
const balance = async (owner: Address) => orFail(await token.payerState(owner, `0x${'00'.repeat(32)}`)()).balance
const units = (n: bigint) => `${Number(n) / 10 ** chosen.decimals} ${chosen.symbol}`
const balances = async () =>
  console.log(
    `payer ${payer.address}: ${units(await balance(payer.address))}; payee ${payTo}: ${units(await balance(payTo))}`,
  )
if (wallet)
  console.log(
    `paying from the demo smart wallet ${wallet.address}` +
      (wallet === session.smartWallets.counterfactual ? ' (ERC-6492: deployed by the settle if it is not yet)' : ''),
  )

const body = await signedPaymentBody({
  payerKey: payer.privateKey,
  payer: payer.address,
  payTo,
  value: 10n ** BigInt(chosen.decimals),
  network: network.name,
  domain,
  // The counterfactual wallet's signature carries its factory call (ERC-6492); once deployed, it is still accepted.
  erc6492: wallet === session.smartWallets.counterfactual ? wallet : undefined,
})
const post = async (endpoint: string) => {
  const response = await fetch(`${session.url}/api/facilitator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  console.log(`POST /api/facilitator/${endpoint} → ${response.status}`, await response.json())
}

await balances()
await post('verify')
await post('settle')
await balances()
