import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { makeChainRpc, makeRpcTokenReader } from '@x402-facilitator/adapters-chain'
import { CanonicalAddress, HexBytes, type EvmAddress as Address } from '@x402-facilitator/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

const SmartWallet = t.type({
  address: CanonicalAddress,
  ownerPrivateKey: HexBytes,
  factory: CanonicalAddress,
  factoryCalldata: HexBytes,
})

/** What `npm start` in dev mode writes to DATA_DIR/dev-session.json. */
const TokenOfSession = t.type({ address: CanonicalAddress, symbol: t.string, decimals: t.number })
export type TokenOfSession = t.TypeOf<typeof TokenOfSession>

const EvmSession = t.type({
  url: t.string,
  networks: t.array(t.type({ name: t.string, rpcUrl: t.string, tokens: t.array(TokenOfSession) })),
  rpcUrl: t.string,
  network: t.string,
  token: TokenOfSession,
  payers: t.array(t.type({ address: CanonicalAddress, privateKey: HexBytes })),
  smartWallets: t.type({ deployed: SmartWallet, counterfactual: SmartWallet }),
})
const SolanaOfSession = t.partial({
  solana: t.type({
    network: t.string,
    rpcUrl: t.string,
    mint: t.string,
    feePayer: t.string,
    payee: t.string,
    payers: t.array(t.type({ address: t.string, secret: t.string })),
  }),
})
const DevSession = t.intersection([EvmSession, SolanaOfSession])
export type DevSession = t.TypeOf<typeof DevSession>
export type NetworkOfSession = DevSession['networks'][number]

export const fail = (line: string): never => {
  console.error(line)
  process.exit(1)
}

export const readDevSession = async (): Promise<DevSession> => {
  const sessionFile = path.resolve(process.env.DATA_DIR ?? '.data', 'dev-session.json')
  const sessionText = await readFile(sessionFile, 'utf8').catch(() =>
    fail(`no dev session at ${sessionFile}: start the facilitator first with \`npm start\``),
  )
  return E.getOrElseW(() =>
    fail(`${sessionFile} is not a dev session: start the facilitator again with \`npm start\``),
  )(DevSession.decode(JSON.parse(sessionText)))
}

/** A fresh payee, so that its balance shows the payment alone. */
export const freshAddress = (): Address =>
  `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`

/**
 * Reads of the demo token on its chain: its EIP-712 domain, balances, a payer's allowance to Permit2. `method` names
 * whose nonce the reads look at: the token's (EIP-3009) or Permit2's (a token without EIP-3009, as DUSDT).
 */
export const demoToken = async (network: NetworkOfSession, chosen: TokenOfSession, method?: 'permit2') => {
  const token = makeRpcTokenReader(makeChainRpc({ rpcUrl: network.rpcUrl }), chosen.address)
  const orFail = <A>(result: E.Either<{ reason: string }, A>): A =>
    E.isRight(result) ? result.right : fail(`the local chain did not answer: ${result.left.reason}`)
  const state = async (owner: Address) => orFail(await token.payerState(owner, `0x${'00'.repeat(32)}`, method)())
  const units = (n: bigint) => `${Number(n) / 10 ** chosen.decimals} ${chosen.symbol}`
  return {
    domain: orFail(await token.domain()),
    units,
    balance: async (owner: Address) => (await state(owner)).balance,
    permit2Allowance: async (owner: Address) => (await state(owner)).permit2Allowance ?? 0n,
    balances: async (payer: Address, payTo: Address) =>
      console.log(
        `payer ${payer}: ${units((await state(payer)).balance)}; payee ${payTo}: ${units((await state(payTo)).balance)}`,
      ),
  }
}

/** POSTs `body` to the facilitator's `endpoint`, prints the answer and returns it. */
export const post = async (session: DevSession, endpoint: string, body: unknown) => {
  const response = await fetch(`${session.url}/api/facilitator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.json()) as Record<string, unknown>
  console.log(`POST /api/facilitator/${endpoint} → ${response.status}`, answer)
  return answer
}
