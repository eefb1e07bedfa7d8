// `npm run place-permit2`: places Uniswap's Permit2 and x402's exact and upto Permit2 proxies at their canonical
// addresses on a local or test chain that takes `anvil_setCode` (anvil, as dev mode does), for a service configured
// with `RPC_URL` and a token paid by `permit2` outside dev mode. Reads RPC_URL as the service does; progress to
// stdout, errors to stderr (exit 1); the last lines are the three settings, for scripts to read. A real network has
// them already (coinbase/x402 contracts/evm lists where): nothing to place there.
import { placeLocalPermit2 } from '@x402-facilitator/adapters-chain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { SETTINGS } from '../config.js'

const fail = (line: string): never => {
  console.error(`place-permit2: ${line}`)
  process.exit(1)
}

const raw = process.env.RPC_URL?.trim()
if (raw === undefined || raw === '') fail('RPC_URL is required: the JSON-RPC endpoint of the local or test chain')
const rpcUrl = SETTINGS.RPC_URL.codec.decode(raw)
if (E.isLeft(rpcUrl)) fail(`RPC_URL must be ${SETTINGS.RPC_URL.codec.name}`)

console.log('placing Permit2 and the x402 Permit2 proxies (anvil_setCode)…')
const placed = await placeLocalPermit2(raw!).catch((error: unknown) =>
  fail(`${(error as Error).message} (the chain must take anvil_setCode: anvil, or a node in its dev mode)`),
)
const { permit2, exactProxy, uptoProxy, chainId } = placed.suite
console.log(`placed on chain ${chainId}:`)
console.log(`PERMIT2_ADDRESS=${permit2}`)
console.log(`EXACT_PERMIT2_PROXY_ADDRESS=${exactProxy}`)
console.log(`UPTO_PERMIT2_PROXY_ADDRESS=${uptoProxy}`)
